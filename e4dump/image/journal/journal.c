/* The jbd2 log walk (journal.h).  The block formats are lib/jbd2.c's; the
 * checksums follow fs/jbd2 (jbd2_chksum: crc32c seeded with the journal
 * UUID's crc32c; tags over the block as it is in the journal, escaped;
 * descriptor, revoke and commit blocks over the whole block with their
 * checksum field zeroed; the superblock from ~0 with s_checksum zeroed).
 * Memory: a few words per header block and per tag, bounded below by the
 * journal's size. */
#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2fs.h>
#include "journal.h"
#include "crc32c.h"
#include "byteorder.h"

#define JBD2_SB_SIZE 1024
#define JBD2_SB_CSUM_OFF 0xfc
#define JBD2_COMMIT_CSUM_OFF 16
#define JBD2_TAIL_SIZE 4

/* A data block a descriptor says follows it. */
struct claim {
	uint64_t fs_block;
	uint32_t jblock;
	uint32_t seq;
	uint32_t checksum;
	uint32_t order;         /* in scan order, for a stable sort */
	uint8_t escaped;
	uint8_t dead;           /* overwritten or bad checksum */
	int8_t sum;             /* tag checksum checked during the scan: 1
				 * matches, -1 not; 0 not checked yet */
};

struct header {
	uint32_t jblock;
	uint32_t seq;
	uint32_t type;
	int bad;                /* its tail checksum failed */
};

struct seqrev {
	uint64_t fs_block;
	uint32_t seq;
};

struct e4_journal {
	e4_jread_fn read;
	void *arg;
	struct e4_jbd2_sb sb;
	int sb_csum;
	uint32_t seed;
	unsigned int unreadable;
	struct e4_jtrans *t;
	size_t nt;
	struct e4_jcopy *c;
	size_t nc;
	size_t *by_block;       /* copy indexes sorted by (fs_block, age) */
	struct e4_jrevoke *r;
	size_t nr;
	uint32_t *rev_by_block;         /* revoke indexes sorted by (block,
					 * trans) */
	void *owner;            /* the reader's state, freed with the journal */
	void (*owner_free)(void *);
};

/* A growable array. */
struct vec {
	void *p;
	size_t n, cap, size;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		void *p = realloc(v->p, cap * v->size);

		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (char *)v->p + v->n++ * v->size;
}

static int csum_v2or3(const struct e4_jbd2_sb *sb)
{
	return !!(sb->incompat & (E4_JBD2_INCOMPAT_CSUM_V2 | E4_JBD2_INCOMPAT_CSUM_V3));
}

/* crc32c(seed) of blk with the 4 bytes at off taken as zero. */
static uint32_t csum_zeroed(uint32_t seed, const uint8_t *blk, size_t size,
			    size_t off)
{
	static const uint8_t zero[4];
	uint32_t c = e4_crc32c(seed, blk, off);

	c = e4_crc32c(c, zero, 4);
	return e4_crc32c(c, blk + off + 4, size - off - 4);
}

/* jbd2_descriptor_block_csum_verify (also revoke blocks): 1 ok, -1 bad,
 * 0 without checksums. */
static int tail_csum(const struct e4_journal *j, const uint8_t *blk)
{
	size_t bs = j->sb.block_size;

	if (!csum_v2or3(&j->sb))
		return 0;
	return csum_zeroed(j->seed, blk, bs, bs - JBD2_TAIL_SIZE) ==
	       e4_be32(blk + bs - JBD2_TAIL_SIZE) ? 1 : -1;
}

static int32_t age_of(const struct e4_journal *j, uint32_t seq)
{
	return (int32_t)(seq - j->sb.sequence);
}

static uint32_t next_jblock(const struct e4_jbd2_sb *sb, uint32_t jb)
{
	return jb + 1 >= sb->log_end ? sb->first : jb + 1;
}

struct scan {
	struct e4_journal *j;
	struct vec claims, headers, revokes;
	uint32_t data_jblock, seq, order;
	size_t max_claims;
	size_t check;           /* the next claim of the last descriptor whose
				 * block the scan has not reached yet */
	int nomem;
};

static int take_tag(void *arg, unsigned int index, const struct e4_jbd2_tag *t)
{
	struct scan *s = arg;
	struct claim *c;

	(void)index;
	if (s->claims.n >= s->max_claims)
		return 1;
	/* the copies follow their descriptor, wrapping at the log's end */
	s->data_jblock = next_jblock(&s->j->sb, s->data_jblock);
	c = vec_push(&s->claims);
	if (!c) {
		s->nomem = 1;
		return 1;
	}
	memset(c, 0, sizeof(*c));
	c->fs_block = t->fs_block;
	c->jblock = s->data_jblock;
	c->seq = s->seq;
	c->checksum = t->checksum;
	c->order = s->order++;
	c->escaped = !!(t->flags & E4_JBD2_FLAG_ESCAPE);
	return 0;
}

static int cmp_seqrev(const void *a, const void *b)
{
	const struct seqrev *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->fs_block < y->fs_block ? -1 : x->fs_block > y->fs_block;
}

/* One record per (block, transaction): a revoke of a block repeated in
 * its transaction says nothing more (jbd2 keeps one per block).  Sorts
 * and returns the count left. */
static size_t dedupe_revokes(struct seqrev *v, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_seqrev);
	for (size_t i = 0; i < n; i++)
		if (!m || cmp_seqrev(&v[m - 1], &v[i]))
			v[m++] = v[i];
	return m;
}

static int take_revoke(void *arg, uint64_t fs_block)
{
	struct scan *s = arg;
	struct seqrev *r;

	/* memory follows the distinct records, not the records: a log
	 * repeating one record fills no more than a few pages */
	if (s->revokes.n == s->revokes.cap && s->revokes.cap >= 4096) {
		s->revokes.n = dedupe_revokes(s->revokes.p, s->revokes.n);
		if (s->revokes.n <= s->revokes.cap / 2) {
			r = (struct seqrev *)s->revokes.p + s->revokes.n++;
			goto fill;
		}
	}
	r = vec_push(&s->revokes);
	if (!r) {
		s->nomem = 1;
		return 1;
	}
fill:
	r->fs_block = fs_block;
	r->seq = s->seq;
	return 0;
}

/* Transactions are found by sequence; t is sorted by age. */
static struct e4_jtrans *trans_of(struct e4_journal *j, uint32_t seq)
{
	int32_t age = age_of(j, seq);
	size_t lo = 0, hi = j->nt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->t[mid].age < age)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->nt && j->t[lo].age == age ? &j->t[lo] : NULL;
}

static int cmp_header_age(const void *a, const void *b, void *arg)
{
	const struct header *x = a, *y = b;
	int32_t ax = age_of(arg, x->seq), ay = age_of(arg, y->seq);

	if (ax != ay)
		return ax < ay ? -1 : 1;
	return x->jblock < y->jblock ? -1 : x->jblock > y->jblock;
}

/* Claims by journal block, newest first. */
static int cmp_claim_jblock(const void *a, const void *b, void *arg)
{
	const struct claim *x = a, *y = b;
	int32_t ax = age_of(arg, x->seq), ay = age_of(arg, y->seq);

	if (x->jblock != y->jblock)
		return x->jblock < y->jblock ? -1 : 1;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_claim_age(const void *a, const void *b, void *arg)
{
	const struct claim *x = a, *y = b;
	int32_t ax = age_of(arg, x->seq), ay = age_of(arg, y->seq);

	if (ax != ay)
		return ax < ay ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_by_block(const void *a, const void *b, void *arg)
{
	const struct e4_journal *j = arg;
	const struct e4_jcopy *x = &j->c[*(const size_t *)a];
	const struct e4_jcopy *y = &j->c[*(const size_t *)b];

	if (x->fs_block != y->fs_block)
		return x->fs_block < y->fs_block ? -1 : 1;
	if (x->trans != y->trans)
		return x->trans < y->trans ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The tag checksum (csum v2/v3) of a copy: crc32c over the big-endian
 * sequence, then the block as it is in the journal.  1 matches, -1 not. */
static int tag_sum(const struct e4_journal *j, const struct claim *c, const uint8_t *blk)
{
	uint8_t seq[4] = { c->seq >> 24, c->seq >> 16, c->seq >> 8, c->seq };
	uint32_t sum = e4_crc32c(j->seed, seq, 4);

	sum = e4_crc32c(sum, blk, j->sb.block_size);
	if (j->sb.incompat & E4_JBD2_INCOMPAT_CSUM_V2)
		return (sum & 0xffff) == c->checksum ? 1 : -1;
	return sum == c->checksum ? 1 : -1;
}

/* The scan is at journal block jb, which is no header: check the claims
 * of the last descriptor that name it (its copies follow it), so that a
 * copy's block is read once, not again to check it (pass 3 reads only
 * the claims met out of order: a transaction wrapping at the log's end). */
static void check_claims(struct scan *s, uint32_t jb, const uint8_t *blk)
{
	struct claim *c = s->claims.p;

	if (!csum_v2or3(&s->j->sb))
		return;
	while (s->check < s->claims.n && c[s->check].jblock == jb)
		c[s->check].sum = (int8_t)tag_sum(s->j, &c[s->check], blk), s->check++;
}

/* Pass 1: every block of the log; header blocks and their tags,
 * revoke records and commits; the tag checksums of the copies that
 * follow their descriptor. */
static enum e4_status scan_log(struct scan *s, uint8_t *buf)
{
	struct e4_journal *j = s->j;
	const struct e4_jbd2_sb *sb = &j->sb;

	for (uint32_t jb = sb->first; jb < sb->log_end; jb++) {
		struct header *h;
		uint32_t type, seq;
		unsigned int n;
		const char *why;

		if (j->read(j->arg, jb, buf) != E4_OK) {
			j->unreadable++;
			continue;
		}
		if (!e4_jbd2_header(buf, sb->block_size, &type, &seq) ||
		    (type != E4_JBD2_DESCRIPTOR && type != E4_JBD2_COMMIT &&
		     type != E4_JBD2_REVOKE)) {
			check_claims(s, jb, buf);
			continue;
		}
		/* claims naming a header block are dead (pass 2); those
		 * still ahead are checked in pass 3 */
		s->check = s->claims.n;
		h = vec_push(&s->headers);
		if (!h)
			return E4_NOMEM;
		h->jblock = jb;
		h->seq = seq;
		h->type = type;
		h->bad = type != E4_JBD2_COMMIT && tail_csum(j, buf) < 0;
		s->data_jblock = jb;
		s->seq = seq;
		if (h->bad)
			continue;
		if (type == E4_JBD2_DESCRIPTOR &&
		    e4_jbd2_tags(sb, buf, take_tag, s, &n, &why) == E4_CORRUPT)
			h->bad = 1;
		else if (type == E4_JBD2_REVOKE &&
			 e4_jbd2_revokes(sb, buf, take_revoke, s, &n, &why) == E4_CORRUPT)
			h->bad = 1;
		if (s->nomem)
			return E4_NOMEM;
	}
	return E4_OK;
}

/* The transactions, from the header blocks (sorted by age). */
static enum e4_status make_transactions(struct scan *s, uint8_t *buf)
{
	struct e4_journal *j = s->j;
	struct header *h = s->headers.p;
	size_t n = s->headers.n;

	if (n)
		qsort_r(h, n, sizeof(*h), cmp_header_age, j);
	j->t = calloc(n ? n : 1, sizeof(*j->t));
	if (!j->t)
		return E4_NOMEM;
	for (size_t i = 0; i < n; i++) {
		struct e4_jtrans *t;

		if (!j->nt || j->t[j->nt - 1].sequence != h[i].seq) {
			t = &j->t[j->nt++];
			t->sequence = h[i].seq;
			t->age = age_of(j, h[i].seq);
			t->first_jblock = h[i].jblock;
			t->live = j->sb.start && t->age >= 0;
		}
		t = &j->t[j->nt - 1];
		if (h[i].type == E4_JBD2_DESCRIPTOR) {
			t->descriptors++;
		} else if (h[i].type == E4_JBD2_COMMIT && !t->committed) {
			struct e4_jbd2_commit cm;

			if (j->read(j->arg, h[i].jblock, buf) != E4_OK)
				continue;
			e4_jbd2_commit_parse(buf, &cm);
			t->committed = 1;
			t->commit_sec = cm.sec;
			t->commit_nsec = cm.nsec;
			if (csum_v2or3(&j->sb))
				t->commit_csum = csum_zeroed(j->seed, buf, j->sb.block_size,
							     JBD2_COMMIT_CSUM_OFF) ==
						 cm.checksum ? 1 : -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (h[i].bad)
			trans_of(j, h[i].seq)->bad_descriptors++;
	return E4_OK;
}

/* Is journal block jb a header block (sorted: the scan's order)? */
static int in_sorted(const uint32_t *v, size_t n, uint32_t jb)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < jb)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == jb;
}

/* Pass 2: which claims still hold their block.  A journal block holds
 * what was written there last: a header block is no copy (a copy that
 * starts with the magic is stored escaped), and of several claims the
 * newest transaction's wins. */
static void settle_claims(struct scan *s, const uint32_t *hdr, size_t nhdr)
{
	struct e4_journal *j = s->j;
	struct claim *c = s->claims.p;
	size_t n = s->claims.n;

	if (n)
		qsort_r(c, n, sizeof(*c), cmp_claim_jblock, j);
	for (size_t i = 0; i < n; i++) {
		if (in_sorted(hdr, nhdr, c[i].jblock) ||
		    (i && c[i - 1].jblock == c[i].jblock))
			c[i].dead = 1;
		if (c[i].dead) {
			struct e4_jtrans *t = trans_of(j, c[i].seq);

			if (t)
				t->overwritten++;
		}
	}
}

/* Pass 3: check each surviving copy's tag checksum (csum v2/v3) and list
 * it. */
static enum e4_status make_copies(struct scan *s, uint8_t *buf)
{
	struct e4_journal *j = s->j;
	struct claim *c = s->claims.p;
	size_t n = s->claims.n;
	int v2 = !!(j->sb.incompat & E4_JBD2_INCOMPAT_CSUM_V2);
	int v3 = !!(j->sb.incompat & E4_JBD2_INCOMPAT_CSUM_V3);

	if (n)
		qsort_r(c, n, sizeof(*c), cmp_claim_age, j);
	j->c = calloc(n ? n : 1, sizeof(*j->c));
	j->by_block = calloc(n ? n : 1, sizeof(*j->by_block));
	if (!j->c || !j->by_block)
		return E4_NOMEM;
	for (size_t i = 0; i < n; i++) {
		struct e4_jtrans *t = trans_of(j, c[i].seq);
		struct e4_jcopy *cp;
		int trust;

		if (c[i].dead || !t)
			continue;
		if (v2 || v3) {
			if (!c[i].sum) {
				if (j->read(j->arg, c[i].jblock, buf) != E4_OK) {
					j->unreadable++;
					continue;
				}
				c[i].sum = (int8_t)tag_sum(j, &c[i], buf);
			}
			if (c[i].sum < 0) {
				t->bad_tag_csum++;
				continue;
			}
			trust = E4_JCOPY_VERIFIED;
		} else {
			trust = t->committed ? E4_JCOPY_COMMITTED : E4_JCOPY_UNCOMMITTED;
		}
		cp = &j->c[j->nc];
		cp->fs_block = c[i].fs_block;
		cp->jblock = c[i].jblock;
		cp->trans = (uint32_t)(t - j->t);
		cp->escaped = c[i].escaped;
		cp->trust = (uint8_t)trust;
		if (!t->ncopies)
			t->first_copy = j->nc;
		t->ncopies++;
		j->by_block[j->nc] = j->nc;
		j->nc++;
	}
	qsort_r(j->by_block, j->nc, sizeof(*j->by_block), cmp_by_block, j);
	return E4_OK;
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct e4_jrevoke *x = a, *y = b;

	if (x->trans != y->trans)
		return x->trans < y->trans ? -1 : 1;
	return x->fs_block < y->fs_block ? -1 : x->fs_block > y->fs_block;
}

static int cmp_rev_block(const void *a, const void *b, void *arg)
{
	const struct e4_journal *j = arg;
	const struct e4_jrevoke *x = &j->r[*(const uint32_t *)a];
	const struct e4_jrevoke *y = &j->r[*(const uint32_t *)b];

	if (x->fs_block != y->fs_block)
		return x->fs_block < y->fs_block ? -1 : 1;
	return x->trans < y->trans ? -1 : x->trans > y->trans;
}

/* The revoke records, one per (block, transaction), in transaction
 * order: made in place from the scan's records (one array, its size the
 * distinct records). */
static enum e4_status make_revokes(struct scan *s)
{
	struct e4_journal *j = s->j;
	struct seqrev *r = s->revokes.p;
	size_t n = dedupe_revokes(r, s->revokes.n);
	struct e4_jrevoke *out;

	_Static_assert(sizeof(struct seqrev) == sizeof(struct e4_jrevoke),
		       "revoke records are converted in place");
	out = (struct e4_jrevoke *)r;
	for (size_t i = 0; i < n; i++) {
		struct e4_jtrans *t = trans_of(j, r[i].seq);
		uint64_t blk = r[i].fs_block;

		if (!t)
			continue;
		t->revokes++;
		out[j->nr].fs_block = blk;
		out[j->nr].trans = (uint32_t)(t - j->t);
		j->nr++;
	}
	if (j->nr)
		qsort(out, j->nr, sizeof(*out), cmp_revoke);
	for (size_t i = j->nr; i-- > 0;)
		j->t[out[i].trans].first_revoke = i;
	if (!out) {
		out = calloc(1, sizeof(*out));
		if (!out)
			return E4_NOMEM;
	} else {
		struct e4_jrevoke *p = realloc(out, (j->nr ? j->nr : 1) * sizeof(*out));

		if (p)
			out = p;
	}
	j->r = out;
	s->revokes.p = NULL;
	s->revokes.n = s->revokes.cap = 0;
	/* by block, for the replay rule (e4_journal_revoked) */
	if (j->nr > UINT32_MAX)
		return E4_LIMIT;
	j->rev_by_block = malloc((j->nr ? j->nr : 1) * sizeof(*j->rev_by_block));
	if (!j->rev_by_block)
		return E4_NOMEM;
	for (size_t i = 0; i < j->nr; i++)
		j->rev_by_block[i] = (uint32_t)i;
	if (j->nr)
		qsort_r(j->rev_by_block, j->nr, sizeof(*j->rev_by_block), cmp_rev_block, j);
	return E4_OK;
}

int e4_journal_revoked(const struct e4_journal *j, uint64_t blk, uint32_t from,
		       uint32_t limit)
{
	size_t lo = 0, hi = j->nr;

	/* the first record of blk from transaction from on */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct e4_jrevoke *r = &j->r[j->rev_by_block[mid]];

		if (r->fs_block < blk || (r->fs_block == blk && r->trans < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->nr && j->r[j->rev_by_block[lo]].fs_block == blk &&
	       j->r[j->rev_by_block[lo]].trans < limit;
}

enum e4_status e4_journal_load(e4_jread_fn read, void *arg, uint32_t nblocks,
			       uint32_t fs_block_size, int fs_fast_commit,
			       struct e4_journal **out, const char **why)
{
	struct e4_journal *j;
	struct scan s;
	uint8_t *buf = NULL;
	uint32_t *hdr = NULL;
	enum e4_status st;

	*out = NULL;
	*why = NULL;
	if (fs_block_size < 1024 || fs_block_size > 65536 || nblocks < 2) {
		*why = "the journal is too small to hold a log";
		return E4_CORRUPT;
	}
	j = calloc(1, sizeof(*j));
	buf = malloc(fs_block_size);
	memset(&s, 0, sizeof(s));
	s.claims.size = sizeof(struct claim);
	s.headers.size = sizeof(struct header);
	s.revokes.size = sizeof(struct seqrev);
	s.j = j;
	if (!j || !buf) {
		st = E4_NOMEM;
		goto out;
	}
	j->read = read;
	j->arg = arg;
	st = read(arg, 0, buf);
	if (st != E4_OK) {
		*why = "the journal superblock cannot be read";
		goto out;
	}
	st = e4_jbd2_sb_parse(buf, fs_block_size, fs_block_size, &j->sb, why);
	if (st != E4_OK)
		goto out;
	if (j->sb.maxlen > nblocks) {
		/* jbd2's load_superblock: "journal file too short" */
		*why = "the journal superblock's s_maxlen is larger than the journal";
		st = E4_CORRUPT;
		goto out;
	}
	if (fs_fast_commit && !(j->sb.incompat & E4_JBD2_INCOMPAT_FAST_COMMIT)) {
		uint32_t fc = j->sb.fc_blocks ? j->sb.fc_blocks : 256;

		if (j->sb.version == 2 && fc < j->sb.maxlen - j->sb.first)
			j->sb.log_end = j->sb.maxlen - fc;
	}
	j->seed = e4_crc32c(~0u, j->sb.uuid, sizeof(j->sb.uuid));
	if (csum_v2or3(&j->sb))
		j->sb_csum = csum_zeroed(~0u, buf, JBD2_SB_SIZE, JBD2_SB_CSUM_OFF) ==
			     j->sb.checksum ? 1 : -1;
	/* A real log has at most one tag per block; a hostile one may claim
	 * more, up to the tags a block holds, which this bound cuts. */
	s.max_claims = (size_t)4 * j->sb.log_end + 1024;
	st = scan_log(&s, buf);
	if (st != E4_OK)
		goto out;
	hdr = malloc((s.headers.n ? s.headers.n : 1) * sizeof(*hdr));
	if (!hdr) {
		st = E4_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.headers.n; i++)
		hdr[i] = ((const struct header *)s.headers.p)[i].jblock;
	st = make_transactions(&s, buf);
	if (st == E4_OK)
		settle_claims(&s, hdr, s.headers.n);
	if (st == E4_OK)
		st = make_copies(&s, buf);
	if (st == E4_OK)
		st = make_revokes(&s);
out:
	free(hdr);
	free(buf);
	free(s.claims.p);
	free(s.headers.p);
	free(s.revokes.p);
	if (st != E4_OK) {
		e4_journal_free(j);
		return st;
	}
	*out = j;
	return E4_OK;
}

void e4_journal_free(struct e4_journal *j)
{
	if (!j)
		return;
	free(j->t);
	free(j->c);
	free(j->by_block);
	free(j->r);
	free(j->rev_by_block);
	if (j->owner_free)
		j->owner_free(j->owner);
	free(j);
}

void e4_journal_set_owner(struct e4_journal *j, void *owner,
			  void (*owner_free)(void *))
{
	j->owner = owner;
	j->owner_free = owner_free;
}

const struct e4_jbd2_sb *e4_journal_sb(const struct e4_journal *j)
{
	return &j->sb;
}

int e4_journal_sb_csum(const struct e4_journal *j)
{
	return j->sb_csum;
}

unsigned int e4_journal_unreadable(const struct e4_journal *j)
{
	return j->unreadable;
}

size_t e4_journal_ntrans(const struct e4_journal *j)
{
	return j->nt;
}

const struct e4_jtrans *e4_journal_trans(const struct e4_journal *j, size_t i)
{
	return &j->t[i];
}

size_t e4_journal_ncopies(const struct e4_journal *j)
{
	return j->nc;
}

const struct e4_jcopy *e4_journal_copy(const struct e4_journal *j, size_t i)
{
	return &j->c[i];
}

size_t e4_journal_block_copies(const struct e4_journal *j, uint64_t fs_block,
			       size_t *first)
{
	size_t lo = 0, hi = j->nc, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->c[j->by_block[mid]].fs_block < fs_block)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (end = lo, hi = j->nc; end < hi;) {
		size_t mid = end + (hi - end) / 2;

		if (j->c[j->by_block[mid]].fs_block <= fs_block)
			end = mid + 1;
		else
			hi = mid;
	}
	return end - lo;
}

size_t e4_journal_range_copies(const struct e4_journal *j, uint64_t lo,
			       uint64_t hi, size_t *first)
{
	size_t end;

	(void)e4_journal_block_copies(j, lo, first);
	(void)e4_journal_block_copies(j, hi, &end);
	return hi > lo ? end - *first : 0;
}

const struct e4_jcopy *e4_journal_block_copy(const struct e4_journal *j,
					     size_t k)
{
	return &j->c[j->by_block[k]];
}

enum e4_status e4_journal_blocks(const struct e4_journal *j, uint64_t **out,
				 size_t *n)
{
	uint64_t *v;

	*out = NULL;
	*n = 0;
	if (!j->nc)
		return E4_OK;
	v = malloc(j->nc * sizeof(*v));
	if (!v)
		return E4_NOMEM;
	/* by_block is sorted by block: the distinct ones in one pass */
	for (size_t i = 0; i < j->nc; i++) {
		uint64_t b = j->c[j->by_block[i]].fs_block;

		if (!*n || v[*n - 1] != b)
			v[(*n)++] = b;
	}
	*out = v;
	return E4_OK;
}

enum e4_status e4_journal_read_copy(const struct e4_journal *j,
				    const struct e4_jcopy *c, uint8_t *buf)
{
	enum e4_status st = j->read(j->arg, c->jblock, buf);

	if (st == E4_OK && c->escaped) {
		static const uint8_t magic[4] = { 0xc0, 0x3b, 0x39, 0x98 };

		memcpy(buf, magic, sizeof(magic));
	}
	return st;
}

size_t e4_journal_nrevokes(const struct e4_journal *j)
{
	return j->nr;
}

const struct e4_jrevoke *e4_journal_revoke(const struct e4_journal *j,
					   size_t i)
{
	return &j->r[i];
}

const char *e4_jcopy_trust_name(enum e4_jcopy_trust t)
{
	switch (t) {
	case E4_JCOPY_VERIFIED:
		return "verified";
	case E4_JCOPY_COMMITTED:
		return "committed";
	default:
		return "uncommitted";
	}
}

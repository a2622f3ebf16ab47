/* Directory listings (dir.h): entries in an arena of chunks, names
 * decrypted with the directory's policy or given the no-key names Linux
 * shows. */
#include <stdlib.h>
#include <string.h>
#include "bigmem.h"
#include "casefold.h"
#include "dir.h"
#include "dirblock.h"
#include "kdf.h"
#include "escape.h"
#include "fs_private.h"
#include "nokey.h"

/* Zero padding that shows a name with '/' or NUL is really the key's. */
#define HOSTILE_EVIDENCE_BITS 32

/* Arena offsets: chunk index << ARENA_SHIFT | position in the chunk.
 * Chunks grow from 256 bytes to 2 MiB (huge pages, bigmem.h) and are
 * never moved: a large listing costs no copying (nor wiping of old
 * copies). */
#define ARENA_SHIFT 21
#define ARENA_CHUNK_MAX (1u << ARENA_SHIFT)
#define ARENA_CHUNKS_MAX 2048u

/* One entry, compactly; strings are offsets into the arena. */
struct ent {
	uint32_t ino;
	uint32_t raw_off, name_off, plain_off;
	uint32_t hash, minor_hash;
	uint32_t dup;
	uint16_t len_field;
	uint8_t raw_len, name_len, plain_len;
	uint8_t file_type, state, problem, has_hash, has_plain;
};

struct e4_dir {
	struct e4_dir_facts facts;
	struct e4_dir_read_info info;
	struct ent *v;
	size_t n, cap;
	uint8_t **chunk;          /* the arena */
	size_t nchunks, chunks_cap;
	size_t used, last_size;   /* of the last chunk */
	int nomem, over;
	size_t max;
};

static const char *problem_text(enum e4_name_problem p)
{
	switch (p) {
	case E4_NAME_TOO_SHORT: return "ciphertext shorter than 16 bytes";
	case E4_NAME_INVALID: return "invalid plaintext (corrupt name, nonce or key)";
	case E4_NAME_SLASH: return "decrypts to a name with '/'";
	case E4_NAME_UNTRUSTED: return "not trusted: most names of this directory carry no evidence of the key";
	default: return "";
	}
}

static const uint8_t *at(const struct e4_dir *d, uint32_t off)
{
	return d->chunk[off >> ARENA_SHIFT] + (off & (ARENA_CHUNK_MAX - 1));
}

/* The size of chunk i. */
static size_t chunk_size(size_t i)
{
	return i < 13 ? (size_t)256 << i : ARENA_CHUNK_MAX;
}

/* A new last chunk for len bytes (every string is at most 256: a name,
 * its ciphertext or its no-key name): 0, or -1 (out of memory). */
static int new_chunk(struct e4_dir *d, size_t len)
{
	size_t size = chunk_size(d->nchunks);
	uint8_t *c;

	if (len > size || d->nchunks == ARENA_CHUNKS_MAX)
		return -1;
	if (d->nchunks == d->chunks_cap) {
		size_t cap = d->chunks_cap ? 2 * d->chunks_cap : 16;
		uint8_t **v = realloc(d->chunk, cap * sizeof(*v));

		if (!v)
			return -1;
		d->chunk = v;
		d->chunks_cap = cap;
	}
	if (!(c = e4_big_realloc(NULL, 0, size)))
		return -1;
	d->chunk[d->nchunks++] = c;
	d->used = 0;
	d->last_size = size;
	return 0;
}

/* Append len bytes to the arena; its offset, or UINT32_MAX. */
static uint32_t put(struct e4_dir *d, const void *p, size_t len)
{
	uint32_t off;

	if ((!d->nchunks || d->used + len > d->last_size) && new_chunk(d, len)) {
		d->nomem = 1;
		return UINT32_MAX;
	}
	off = (uint32_t)((d->nchunks - 1) << ARENA_SHIFT | d->used);
	if (len)
		memcpy(d->chunk[d->nchunks - 1] + d->used, p, len);
	d->used += len;
	return off;
}

static int collect_any(struct e4_dir *d, const struct e4_dirent *de);

static int collect(void *arg, const struct e4_dirent *de)
{
	if (e4_dirent_is_dot(de))
		return 0;
	return collect_any(arg, de);
}

static int collect_any(struct e4_dir *d, const struct e4_dirent *de)
{
	struct ent *e;

	if (d->n == d->max) {
		d->over = 1;
		return 1;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct ent *v = e4_big_realloc(d->v, d->cap * sizeof(*v),
						cap * sizeof(*v));

		if (!v) {
			d->nomem = 1;
			return 1;
		}
		d->v = v;
		d->cap = cap;
	}
	e = &d->v[d->n];
	memset(e, 0, sizeof(*e));
	e->ino = de->inode;
	e->file_type = de->file_type;
	e->raw_len = de->name_len;
	e->len_field = (uint16_t)(de->name_len | de->file_type << 8);
	e->has_hash = (uint8_t)de->has_hash;
	e->hash = de->hash;
	e->minor_hash = de->minor_hash;
	e->raw_off = put(d, de->name, de->name_len);
	if (d->nomem)
		return 1;
	d->n++;
	return 0;
}

void e4_nokey_name_of(struct e4_fs *fs, int hashed, int readdir_hash,
		       const uint8_t *raw, size_t len, int has_hash, uint32_t hash,
		       uint32_t minor, char *out)
{
	uint32_t h = 0, m = 0;

	if (e4_fs_name_format(fs) == E4_FORMAT_2015) {
		if (!len || e4_nokey_name_2015(raw, len, out))
			strcpy(out, "?");
		return;
	}
	if (hashed) {
		if (has_hash) {
			h = hash;
			m = minor;
		}
	} else if (readdir_hash >= 0 &&
		   e4_dirhash(readdir_hash, raw, len, fs->ext2->super->s_hash_seed,
			      &h, &m)) {
		h = m = 0;
	}
	if (!len || e4_nokey_name_v61(h, m, raw, len, out))
		strcpy(out, "?");
}

/* The no-key name of entry e into out (E4_NOKEY_NAME_MAX + 1 bytes). */
static void nokey_name(struct e4_fs *fs, const struct e4_dir *d,
		       const struct ent *e, char *out)
{
	e4_nokey_name_of(fs, d->info.hashed, d->info.htree_hash ? d->info.hash_version : -1,
			  at(d, e->raw_off), e->raw_len, e->has_hash, e->hash,
			  e->minor_hash, out);
}

/* A name that decrypted with '/' or NUL in it (only a hostile or damaged
 * image has one) is kept, up to its last non-NUL byte, when its own zero
 * padding is evidence enough that the key is right. */
static int hostile_name(const uint8_t *plain, size_t stored, size_t *n)
{
	size_t m = stored;

	while (m && !plain[m - 1])
		m--;
	if (!m || e4_name_evidence_bits(plain, stored, m) < HOSTILE_EVIDENCE_BITS)
		return 0;
	*n = m;
	return 1;
}

/* Decrypt every name.  Unless most names verify (e4_evidence_trusted:
 * the key or the directory's nonce may be wrong, and a wrong key decrypts
 * most names to "valid" garbage), none of them is trusted. */
static void decrypt_names(struct e4_dir *d, struct e4_cipher *c,
			  unsigned int flags)
{
	struct e4_evidence ev;

	memset(&ev, 0, sizeof(ev));
	for (size_t i = 0; i < d->n && !d->nomem; i++) {
		struct ent *e = &d->v[i];
		uint8_t raw[256], plain[256];
		size_t n = 0;
		enum e4_status st;

		memcpy(raw, at(d, e->raw_off), e->raw_len);
		st = e4_decrypt_path(c, raw, e->raw_len, plain, &n);
		if (st == E4_OK && memchr(plain, '/', n)) {
			st = E4_BAD_KEY;
			e->problem = E4_NAME_SLASH;
		} else if (st == E4_BAD_KEY) {
			e->problem = E4_NAME_INVALID;
		} else if (st != E4_OK) {
			e->problem = E4_NAME_TOO_SHORT;
		}
		if (st == E4_BAD_KEY) {
			/* plain holds all raw_len decrypted bytes */
			size_t m = e->raw_len;

			while (m && !plain[m - 1])
				m--;
			e->plain_len = (uint8_t)m;
			e->plain_off = put(d, plain, m);
			e->has_plain = 1;
			if ((flags & E4_LIST_KEEP_UNSAFE) &&
			    hostile_name(plain, e->raw_len, &n))
				st = E4_OK;
		}
		if (st == E4_OK) {
			e->state = E4_NAME_DECRYPTED;
			e->name_off = put(d, plain, n);
			e->name_len = (uint8_t)n;
			if (!e->has_plain) {
				e->plain_off = e->name_off;
				e->plain_len = e->name_len;
				e->has_plain = 1;
			}
			e4_evidence_add(&ev, 1, plain, e->raw_len, n);
		} else {
			e->state = E4_NAME_BAD;
			e4_evidence_add(&ev, 0, plain, e->raw_len, 0);
		}
		e4_wipe(plain, sizeof(plain));
	}
	if (e4_evidence_trusted(&ev))
		return;
	for (size_t i = 0; i < d->n; i++) {
		if (d->v[i].state == E4_NAME_DECRYPTED) {
			d->v[i].state = E4_NAME_BAD;
			d->v[i].problem = E4_NAME_UNTRUSTED;
		}
	}
}

static int cmp_ent(const void *a, const void *b, void *arg)
{
	const struct ent *x = a, *y = b;
	const struct e4_dir *d = arg;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(at(d, x->name_off), at(d, y->name_off), n);

	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

static int cmp_index(const void *a, const void *b, void *arg)
{
	const struct e4_dir *d = arg;

	return cmp_ent(&d->v[*(const size_t *)a], &d->v[*(const size_t *)b], arg);
}

void e4_dir_sort_indices(const struct e4_dir *d, size_t *idx, size_t n)
{
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_index, (void *)d);
}

static int same_name(const struct e4_dir *d, const struct ent *x,
		     const struct ent *y)
{
	return x->name_len == y->name_len &&
	       !memcmp(at(d, x->name_off), at(d, y->name_off), x->name_len);
}

/* Join a directory's display path and an entry's shown name. */
static char *entry_path(const char *dir, const uint8_t *name, size_t len)
{
	size_t ld = dir ? strlen(dir) : 0;
	char *p = malloc(ld + E4_ESCAPE_SIZE(len) + 2);

	if (!p)
		return NULL;
	memcpy(p, dir ? dir : "", ld);
	if (!ld || p[ld - 1] != '/')
		p[ld++] = '/';
	e4_escape(name, len, p + ld, E4_ESCAPE_SLASH);
	return p;
}

static void report_entry(struct e4_fs *fs, const struct e4_dir *d,
			 const char *path, const struct ent *e,
			 enum e4_problem problem, const char *fmt,
			 const char *arg, uint32_t other)
{
	char *p = entry_path(path, at(d, e->name_off), e->name_len);

	e4_report_p(fs, E4_DIAG_ERROR, E4_CORRUPT, problem, e->ino, p ? p : path,
		    fmt, arg, other);
	free(p);
}

/* The directory's name cipher; reports what keeps names from decrypting. */
static struct e4_cipher *setup(struct e4_fs *fs, struct e4_dir *d,
			       const struct e4_inode *in, const char *path,
			       const struct e4_context *given)
{
	struct e4_cipher *c = NULL;
	const char *why = "no valid encryption context";
	enum e4_status st = E4_OK;

	if (given)
		d->facts.ctx = *given;
	else
		st = e4_inode_context(fs, in, &d->facts.ctx, &why);

	if (st == E4_NOT_FOUND) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "encrypted directory without an encryption context");
		d->facts.broken = 1;
		return NULL;
	}
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
			  "encryption context: %s", why);
		d->facts.broken = 1;
		return NULL;
	}
	/* a key trial for the policy starts with this directory's names */
	fs->trial_hint = in->ino;
	st = e4_fs_inode_cipher(fs, in->ino, &d->facts.ctx, E4_KEY_NAMES, &c);
	fs->trial_hint = 0;
	if (st == E4_OK || st == E4_NO_KEY)
		return c;
	d->facts.broken = 1;
	if (st == E4_UNSUPPORTED || st == E4_UNRECOGNIZED)
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
			  "unsupported encryption mode %u", d->facts.ctx.filenames_mode);
	else
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
			  "cannot set up name decryption: %s", e4_status_str(st));
	return NULL;
}

/* Names decrypted (cipher from the directory's context, or given), no-key
 * names, order and duplicates: the rules of every listing. */
static enum e4_status finish(struct e4_fs *fs, struct e4_dir *d,
			     const struct e4_inode *in, const char *path,
			     unsigned int flags, const struct e4_context *given,
			     int no_ctx, struct e4_dir **out)
{
	struct e4_cipher *c = NULL;

	if (no_ctx) {
		/* names without a context: no-key names */
	} else if (in->encrypted && d->n) {
		c = setup(fs, d, in, path, given);
		d->facts.have_key = c != NULL;
		if (c)
			decrypt_names(d, c, flags);
		e4_cipher_free(c);
	} else if (in->encrypted) {
		c = setup(fs, d, in, path, given);
		d->facts.have_key = c != NULL;
		e4_cipher_free(c);
	}
	for (size_t i = 0; i < d->n && !d->nomem; i++) {
		struct ent *e = &d->v[i];
		char nk[E4_NOKEY_NAME_MAX + 1];

		if (!in->encrypted) {
			e->state = E4_NAME_PLAIN;
			e->name_off = e->raw_off;
			e->name_len = e->raw_len;
			continue;
		}
		if (e->state == E4_NAME_DECRYPTED)
			continue;
		if (e->state != E4_NAME_BAD)
			e->state = E4_NAME_NOKEY;
		nokey_name(fs, d, e, nk);
		e->name_len = (uint8_t)strlen(nk);
		e->name_off = put(d, nk, e->name_len);
	}
	if (d->nomem) {
		e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, in->ino, path,
			  "out of memory for the listing");
		e4_dir_free(d);
		return E4_NOMEM;
	}
	if (!(flags & E4_LIST_UNSORTED) && d->n > 1)
		qsort_r(d->v, d->n, sizeof(*d->v), cmp_ent, d);
	for (size_t i = 0; i < d->n; i++) {
		struct ent *e = &d->v[i];

		if (i && !(flags & E4_LIST_UNSORTED) && same_name(d, &d->v[i - 1], e))
			e->dup = d->v[i - 1].dup + 1;
		if (flags & E4_LIST_QUIET)
			continue;
		if (e->state == E4_NAME_BAD)
			report_entry(fs, d, path, e, E4_P_NAME,
				     "name does not decrypt: %s",
				     problem_text(e->problem), 0);
		if (e->dup)
			report_entry(fs, d, path, e, E4_P_DUP_NAME,
				     "%s the same name as the entry for inode %u in this directory",
				     e->state == E4_NAME_DECRYPTED ? "decrypts to" : "has",
				     d->v[i - 1].ino);
	}
	*out = d;
	return E4_OK;
}

enum e4_status e4_dir_list_given(struct e4_fs *fs, const struct e4_inode *in,
				 const struct e4_context *ctx,
				 const struct e4_dir_read_info *info,
				 const struct e4_dirent *ents, size_t n,
				 unsigned int flags, struct e4_dir **out)
{
	struct e4_dir *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return E4_NOMEM;
	if (new_chunk(d, 0)) {
		e4_dir_free(d);
		return E4_NOMEM;
	}
	d->max = SIZE_MAX;
	d->facts.ino = in->ino;
	d->facts.encrypted = in->encrypted;
	d->facts.casefolded = (in->flags & E4_INODE_CASEFOLD_FL) != 0;
	d->facts.indexed = (in->flags & E4_INODE_INDEX_FL) != 0;
	d->info = *info;
	for (size_t i = 0; i < n && !d->nomem; i++) {
		(void)collect_any(d, &ents[i]);
	}
	if (d->nomem) {
		e4_dir_free(d);
		return E4_NOMEM;
	}
	/* no context: every name its no-key name */
	if (in->encrypted && !ctx)
		d->facts.broken = 1;
	return finish(fs, d, in, NULL, flags | E4_LIST_QUIET, ctx, !ctx, out);
}

enum e4_status e4_dir_list(struct e4_fs *fs, const struct e4_inode *in,
			   const char *path, unsigned int flags,
			   struct e4_dir **out)
{
	struct e4_dir *d = calloc(1, sizeof(*d));
	enum e4_status st;

	*out = NULL;
	if (!d)
		return E4_NOMEM;
	/* a first chunk: an entry with an empty name points into it too */
	if (new_chunk(d, 0)) {
		e4_dir_free(d);
		return E4_NOMEM;
	}
	d->max = fs->opt.max_dir_entries;
	d->facts.ino = in->ino;
	d->facts.encrypted = in->encrypted;
	d->facts.casefolded = (in->flags & E4_INODE_CASEFOLD_FL) != 0;
	d->facts.indexed = (in->flags & E4_INODE_INDEX_FL) != 0;
	st = e4_dir_iterate(fs, in, path, collect, d, &d->info);
	d->facts.damaged = d->info.damaged;
	if (d->over) {
		e4_report(fs, E4_DIAG_ERROR, E4_LIMIT, in->ino, path,
			  "more than %zu entries: not listed (the limit is an option)",
			  d->max);
		e4_dir_free(d);
		return E4_LIMIT;
	}
	if (d->nomem) {
		e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, in->ino, path,
			  "out of memory for the listing");
		e4_dir_free(d);
		return E4_NOMEM;
	}
	if (st != E4_OK && st != E4_STOPPED && !d->n) {
		e4_dir_free(d);
		return st; /* reported */
	}
	return finish(fs, d, in, path, flags, NULL, 0, out);
}

void e4_dir_free(struct e4_dir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nchunks; i++) {
		size_t size = i + 1 == d->nchunks ? d->used : chunk_size(i);

		e4_wipe(d->chunk[i], size);
		e4_big_free(d->chunk[i], chunk_size(i));
	}
	free(d->chunk);
	e4_big_free(d->v, d->cap * sizeof(*d->v));
	free(d);
}

size_t e4_dir_count(const struct e4_dir *d)
{
	return d->n;
}

void e4_dir_get(const struct e4_dir *d, size_t i, struct e4_entry *out)
{
	const struct ent *e = &d->v[i];

	out->ino = e->ino;
	out->file_type = e->file_type;
	out->state = (enum e4_name_state)e->state;
	out->problem = (enum e4_name_problem)e->problem;
	out->name = at(d, e->name_off);
	out->name_len = e->name_len;
	out->raw = at(d, e->raw_off);
	out->raw_len = e->raw_len;
	out->plain = e->has_plain ? at(d, e->plain_off) : NULL;
	out->plain_len = e->plain_len;
	out->name_len_field = e->len_field;
	out->has_hash = e->has_hash;
	out->hash = e->hash;
	out->minor_hash = e->minor_hash;
	out->dup = e->dup;
}

const struct e4_dir_facts *e4_dir_facts(const struct e4_dir *d)
{
	return &d->facts;
}

void e4_dir_nokey_name(struct e4_fs *fs, const struct e4_dir *d, size_t i,
		       char *out)
{
	nokey_name(fs, d, &d->v[i], out);
}

const char *e4_name_problem_text(enum e4_name_problem p)
{
	return problem_text(p);
}

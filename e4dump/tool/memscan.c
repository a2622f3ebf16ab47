/* Keys from memory captures (memscan.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "memscan.h"
#include "byteorder.h"
#include "kdf.h"
#include "keyfile.h"

struct memscan_cand {
	struct memscan_origin o;
	struct e4_mem_key key;
	struct e4_hmac_states st;
	uint64_t hash;
};

/* Which candidates are the same: v1 keys by bytes whatever held them,
 * states by states, AES keys by bytes and length. */
static int klass(const struct memscan_origin *o)
{
	if (o->from_file_keys)
		return 0; /* a v1 master key */
	return o->kind == E4_MEMKEY_HKDF ? 1 :
	       o->kind == E4_MEMKEY_AES || o->kind == E4_MEMKEY_AES_XTS ? 2 :
	       o->kind == E4_MEMKEY_DESCRIPTION ? 3 : 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static uint64_t cand_hash(const struct memscan_cand *c)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)klass(&c->o);

	if (c->o.kind == E4_MEMKEY_HKDF)
		return fnv(h, &c->st, sizeof(c->st));
	if (klass(&c->o) == 3)
		return fnv(h, c->key.descriptor, 8);
	h = fnv(h, &c->key.len, sizeof(c->key.len));
	return fnv(h, c->key.raw, c->key.len);
}

static int cand_same(const struct memscan_cand *a, const struct memscan_cand *b)
{
	if (klass(&a->o) != klass(&b->o))
		return 0;
	if (a->o.kind == E4_MEMKEY_HKDF)
		return !memcmp(&a->st, &b->st, sizeof(a->st));
	if (klass(&a->o) == 3)
		return !memcmp(a->key.descriptor, b->key.descriptor, 8);
	return a->key.len == b->key.len && !memcmp(a->key.raw, b->key.raw, a->key.len);
}

static int rehash(struct memscan *m, size_t n_bucket)
{
	size_t *b = calloc(n_bucket, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < m->n_cand; i++) {
		size_t j = (size_t)m->cand[i].hash & (n_bucket - 1);

		while (b[j])
			j = (j + 1) & (n_bucket - 1);
		b[j] = i + 1;
	}
	free(m->bucket);
	m->bucket = b;
	m->n_bucket = n_bucket;
	return 0;
}

/* Keep c once (a copy; c is left to the caller).  The index of the kept
 * candidate, or -1 when dropped (the cap) or out of memory (*nomem). */
static long keep(struct memscan *m, const struct memscan_cand *c, int *nomem)
{
	uint64_t h = cand_hash(c);
	size_t j;

	if (m->n_bucket) {
		for (j = (size_t)h & (m->n_bucket - 1); m->bucket[j];
		     j = (j + 1) & (m->n_bucket - 1)) {
			struct memscan_cand *o = &m->cand[m->bucket[j] - 1];

			if (o->hash == h && cand_same(o, c)) {
				o->o.copies++;
				o->o.kinds |= memscan_kind_bit(&c->o);
				return (long)(m->bucket[j] - 1);
			}
		}
	}
	if (m->n_cand >= MEMSCAN_MAX_CANDIDATES) {
		m->dropped++;
		return -1;
	}
	if (m->n_cand == m->cap_cand) {
		/* a new array, the old one wiped: realloc would leave copies */
		size_t cap = m->cap_cand ? 2 * m->cap_cand : 64;
		struct memscan_cand *v = calloc(cap, sizeof(*v));

		if (!v) {
			*nomem = 1;
			return -1;
		}
		if (m->n_cand)
			memcpy(v, m->cand, m->n_cand * sizeof(*v));
		e4_wipe(m->cand, m->cap_cand * sizeof(*m->cand));
		free(m->cand);
		m->cand = v;
		m->cap_cand = cap;
	}
	if (2 * (m->n_cand + 1) > m->n_bucket &&
	    rehash(m, m->n_bucket ? 2 * m->n_bucket : 256)) {
		*nomem = 1;
		return -1;
	}
	m->cand[m->n_cand] = *c;
	m->cand[m->n_cand].hash = h;
	m->cand[m->n_cand].o.copies = 1;
	m->cand[m->n_cand].o.kinds = memscan_kind_bit(&c->o);
	m->cand[m->n_cand].o.ks_index = -1;
	for (j = (size_t)h & (m->n_bucket - 1); m->bucket[j]; j = (j + 1) & (m->n_bucket - 1))
		;
	m->bucket[j] = m->n_cand + 1;
	return (long)m->n_cand++;
}

struct hit_arg {
	struct memscan *m;
	size_t capture;
	int nomem;
};

static int on_hit(void *arg, const struct e4_memkey_hit *h)
{
	struct hit_arg *a = arg;
	struct memscan_cand c;

	memset(&c, 0, sizeof(c));
	c.o.kind = h->kind;
	c.o.capture = a->capture;
	c.o.file_off = h->file_off;
	c.o.phys = h->phys;
	if (h->kind == E4_MEMKEY_HKDF)
		c.st = h->states;
	else
		c.key = h->key;
	c.o.named = c.key.named;
	memcpy(c.o.descriptor, c.key.descriptor, 8);
	keep(a->m, &c, &a->nomem);
	e4_wipe(&c, sizeof(c));
	return a->nomem;
}

static void scan_one(struct memscan *m, size_t i, const char *path,
		     unsigned int threads, int *nomem, struct report *r)
{
	struct memscan_capture *mc = &m->cap[i];
	struct e4_source *src = NULL;
	struct e4_capture c;
	struct hit_arg a = { m, i, 0 };

	mc->path = path;
	mc->status = e4_source_open_file(path, &src);
	if (mc->status != E4_OK) {
		snprintf(mc->why, sizeof(mc->why), "cannot be opened");
		report_error(r, "%s: the capture cannot be opened", path);
		return;
	}
	mc->status = e4_capture_read(src, &c, mc->why, sizeof(mc->why));
	if (mc->status != E4_OK) {
		report_error(r, "%s: %s", path, mc->why[0] ? mc->why : e4_status_str(mc->status));
		e4_source_close(src);
		return;
	}
	mc->kind = c.kind;
	mc->file_size = c.file_size;
	mc->bytes = c.bytes;
	mc->ranges = c.n;
	mc->headers = c.n_headers;
	mc->problems = c.n_problems;
	mc->n_notes = c.n_notes;
	memcpy(mc->notes, c.notes, sizeof(mc->notes));
	for (size_t k = 0; k < c.n_notes; k++)
		report_warning(r, "%s: %s", path, c.notes[k]);
	if (c.n_problems > c.n_notes)
		report_warning(r, "%s: %zu more problems with its ranges", path,
			       c.n_problems - c.n_notes);
	mc->status = e4_capture_scan(src, &c, threads, on_hit, &a, &mc->scanned);
	if (a.nomem) {
		*nomem = 1;
	} else if (mc->status != E4_OK) {
		snprintf(mc->why, sizeof(mc->why), "%s after %llu bytes scanned",
			 e4_status_str(mc->status), (unsigned long long)mc->scanned);
		report_error(r, "%s: the capture cannot be read: %s", path, mc->why);
	}
	e4_capture_free(&c);
	e4_source_close(src);
}

int memscan_run(struct memscan *m, const char *const *paths, size_t n,
		unsigned int threads, struct report *r)
{
	int nomem = 0;

	memset(m, 0, sizeof(*m));
	m->cap = calloc(n ? n : 1, sizeof(*m->cap));
	if (!m->cap) {
		report_error(r, "out of memory");
		return -1;
	}
	m->n_cap = n;
	for (size_t i = 0; i < n && !nomem; i++)
		scan_one(m, i, paths[i], threads, &nomem, r);
	if (nomem) {
		report_error(r, "out of memory keeping the keys found");
		return -1;
	}
	if (m->dropped)
		report_warning(r, "%zu more distinct candidates than the %u kept were not kept",
			       m->dropped, MEMSCAN_MAX_CANDIDATES);
	return 0;
}

static void label_of(const struct memscan *m, const struct memscan_origin *o,
		     char *buf, size_t len)
{
	if (o->from_file_keys)
		snprintf(buf, len, "memory %s: v1 key from per-file keys (inode %u, AES key at 0x%llx)",
			 m->cap[o->capture].path, o->ino, (unsigned long long)o->file_off);
	else
		snprintf(buf, len, "memory %s: %s at 0x%llx", m->cap[o->capture].path,
			 e4_memkey_kind_name(o->kind), (unsigned long long)o->file_off);
}

/* v1 master keys from per-file keys (spec §17.5).  A v1 inode's key is
 * AES-128-ECB-Encrypt(nonce, master[0 .. keysize)), block by block, so
 * every AES key in memory, decrypted under every v1 inode's nonce, gives
 * a value; the master key's first half (or whole 16 bytes) is the value
 * two inodes give alike (their names or contents keys), and for XTS the
 * second half the value two files' tweak keys give alike.  Values of one
 * inode are compared by a fingerprint in a hash table, and equal
 * fingerprints by their bytes. */
struct pair_slot {
	uint64_t fp;   /* 0: empty */
	uint32_t inode, aes;
};

#define MAX_HALVES 64
#define HALF_INODES 8

struct half {
	uint8_t v[64];
	size_t len;
	const struct e4_context *ctx;  /* the policy (of an inode that gave it) */
	long aes;                      /* an AES candidate that gave it */
	uint32_t ino;
	int from_dir;                  /* some directory gave it */
	uint32_t inodes[HALF_INODES];  /* inodes that gave it (the first) */
	size_t n_inodes;
};

struct perfile {
	struct memscan *m;
	const struct e4_enc_inode **ino;
	size_t n_ino;
	long *aes;                 /* candidate index of each AES key */
	size_t n_aes;
	uint8_t *keys;             /* the AES keys, 64 bytes each */
	uint8_t *out;              /* their decryption under one nonce */
	EVP_CIPHER_CTX *ecb;
	EVP_CIPHER *aes128;
	struct half half[MAX_HALVES];
	size_t n_half;
};

static int decrypt_all(struct perfile *p, size_t i, uint8_t *out)
{
	int outl = 0;

	return EVP_DecryptInit_ex2(p->ecb, p->aes128, p->ino[i]->ctx.nonce, NULL, NULL) &&
	       EVP_CIPHER_CTX_set_padding(p->ecb, 0) &&
	       EVP_DecryptUpdate(p->ecb, out, &outl, p->keys, (int)(64 * p->n_aes)) ? 0 : -1;
}

static void note_half(struct perfile *p, const uint8_t *v, size_t len,
		      size_t inode, size_t aes)
{
	const struct e4_enc_inode *in = p->ino[inode];
	struct half *h = NULL;

	for (size_t i = 0; i < p->n_half; i++)
		if (p->half[i].len == len && !memcmp(p->half[i].v, v, len) &&
		    e4_context_same_policy(p->half[i].ctx, &in->ctx)) {
			h = &p->half[i];
			break;
		}
	if (!h) {
		if (p->n_half == MAX_HALVES)
			return;
		h = &p->half[p->n_half++];
		memcpy(h->v, v, len);
		h->len = len;
		h->ctx = &in->ctx;
		h->aes = p->aes[aes];
		h->ino = in->ino;
	}
	if ((in->mode & 0xf000) == 0x4000)
		h->from_dir = 1;
	for (size_t i = 0; i < h->n_inodes; i++)
		if (h->inodes[i] == in->ino)
			return;
	if (h->n_inodes < HALF_INODES)
		h->inodes[h->n_inodes++] = in->ino;
}

static size_t aes_len(const struct perfile *p, size_t a)
{
	return p->m->cand[p->aes[a]].key.len;
}

static int pair_search(struct perfile *p)
{
	size_t per = MEMSCAN_MAX_PAIRS / p->n_aes, n_ino = p->n_ino < per ? p->n_ino : per;
	size_t n_slot = 1, mask;
	struct pair_slot *slot;
	uint8_t *other = malloc(64 * p->n_aes);
	int rc = 0;

	while (n_slot < 2 * n_ino * p->n_aes)
		n_slot <<= 1;
	mask = n_slot - 1;
	slot = calloc(n_slot, sizeof(*slot));
	if (!slot || !other) {
		free(slot);
		free(other);
		return -1;
	}
	p->m->pairs_tried = n_ino * p->n_aes;
	p->m->pairs_cut = (p->n_ino - n_ino) * p->n_aes;
	for (size_t i = 0; i < n_ino && !rc; i++) {
		if (decrypt_all(p, i, p->out)) {
			rc = -1;
			break;
		}
		for (size_t a = 0; a < p->n_aes; a++) {
			const uint8_t *v = p->out + 64 * a;
			size_t len = aes_len(p, a);
			uint64_t fp = (e4_le64(v) ^ len) | 1;
			size_t j;

			for (j = (size_t)(fp ^ fp >> 29) & mask; slot[j].fp; j = (j + 1) & mask) {
				if (slot[j].fp != fp || slot[j].inode == i ||
				    aes_len(p, slot[j].aes) != len)
					continue;
				if (decrypt_all(p, slot[j].inode, other)) {
					rc = -1;
					break;
				}
				if (!memcmp(other + 64 * slot[j].aes, v, len)) {
					note_half(p, v, len, slot[j].inode, slot[j].aes);
					note_half(p, v, len, i, a);
				}
			}
			if (rc)
				break;
			slot[j].fp = fp;
			slot[j].inode = (uint32_t)i;
			slot[j].aes = (uint32_t)a;
		}
	}
	e4_wipe(other, 64 * p->n_aes);
	free(other);
	free(slot);
	return rc;
}

static int share_inode(const struct half *a, const struct half *b)
{
	for (size_t i = 0; i < a->n_inodes; i++)
		for (size_t j = 0; j < b->n_inodes; j++)
			if (a->inodes[i] == b->inodes[j])
				return 1;
	return 0;
}

/* A derived key: kept as a candidate (once) with its origin. */
static int keep_derived(struct perfile *p, const struct half *h, const uint8_t *v,
			size_t len)
{
	const struct memscan_cand *a = &p->m->cand[h->aes];
	struct memscan_cand c;
	int nomem = 0;

	memset(&c, 0, sizeof(c));
	c.o.kind = a->o.kind;
	c.o.from_file_keys = 1;
	c.o.capture = a->o.capture;
	c.o.file_off = a->o.file_off;
	c.o.phys = a->o.phys;
	c.o.ino = h->ino;
	memcpy(c.key.raw, v, len);
	c.key.len = len;
	keep(p->m, &c, &nomem);
	e4_wipe(&c, sizeof(c));
	return nomem ? -1 : 0;
}

/* From the values two inodes gave alike: whole keys (an XTS key of 64
 * bytes, or 16 bytes for AES-128 modes) as they are; a 32-byte first
 * half (given by a directory's names key) with each 32-byte second half
 * that the same regular file gave (its XTS keys' two halves); a first
 * half alone only when no second half pairs with it (it opens names). */
static int keep_halves(struct perfile *p)
{
	for (size_t i = 0; i < p->n_half; i++) {
		const struct half *a = &p->half[i];
		int paired = 0;

		if (a->len != 32) {
			if (keep_derived(p, a, a->v, a->len))
				return -1;
			continue;
		}
		if (!a->from_dir)
			continue;
		for (size_t j = 0; j < p->n_half; j++) {
			const struct half *b = &p->half[j];
			uint8_t whole[64];
			int st;

			if (j == i || b->len != 32 || b->from_dir ||
			    !e4_context_same_policy(a->ctx, b->ctx) || !share_inode(a, b))
				continue;
			memcpy(whole, a->v, 32);
			memcpy(whole + 32, b->v, 32);
			st = keep_derived(p, a, whole, 64);
			e4_wipe(whole, sizeof(whole));
			if (st)
				return -1;
			paired = 1;
		}
		if (!paired && keep_derived(p, a, a->v, 32))
			return -1;
	}
	return 0;
}

static int per_file_keys(struct memscan *m, struct e4_fs *fs, struct report *r)
{
	struct perfile *p = calloc(1, sizeof(*p));
	const struct e4_enc_inode *v;
	size_t n = 0;
	int rc = -1;

	if (!p)
		goto nomem;
	p->m = m;
	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) != E4_OK)
		n = 0;
	p->ino = calloc(n ? n : 1, sizeof(*p->ino));
	p->aes = calloc(m->n_cand ? m->n_cand : 1, sizeof(*p->aes));
	if (!p->ino || !p->aes)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (v[i].ctx_status == E4_OK && v[i].ctx.version == E4_CONTEXT_V1 &&
		    !(v[i].ctx.flags & E4_POLICY_FLAG_DIRECT_KEY))
			p->ino[p->n_ino++] = &v[i];
	for (size_t i = 0; i < m->n_cand; i++)
		if (klass(&m->cand[i].o) == 2 && !m->cand[i].o.from_file_keys &&
		    (m->cand[i].key.len == 16 || m->cand[i].key.len == 32 ||
		     m->cand[i].key.len == 64))
			p->aes[p->n_aes++] = (long)i;
	if (p->n_ino < 2 || !p->n_aes) {
		rc = 0;
		goto out;
	}
	p->keys = calloc(p->n_aes, 64);
	p->out = calloc(p->n_aes, 64);
	p->ecb = EVP_CIPHER_CTX_new();
	p->aes128 = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
	if (!p->keys || !p->out || !p->ecb || !p->aes128)
		goto nomem;
	for (size_t a = 0; a < p->n_aes; a++)
		memcpy(p->keys + 64 * a, m->cand[p->aes[a]].key.raw, aes_len(p, a));
	if (pair_search(p) || keep_halves(p))
		goto nomem;
	if (m->pairs_cut)
		report_warning(r, "per-file keys: %zu (inode, AES key) pairs tried, %zu left out (more than %u)",
			       m->pairs_tried, m->pairs_cut, MEMSCAN_MAX_PAIRS);
	rc = 0;
	goto out;
nomem:
	report_error(r, "out of memory computing v1 keys from per-file keys");
out:
	if (p) {
		if (p->keys)
			e4_wipe(p->keys, 64 * p->n_aes);
		if (p->out)
			e4_wipe(p->out, 64 * p->n_aes);
		e4_wipe(p->half, sizeof(p->half));
		free(p->keys);
		free(p->out);
		EVP_CIPHER_CTX_free(p->ecb);
		EVP_CIPHER_free(p->aes128);
		free(p->ino);
		free(p->aes);
		free(p);
	}
	return rc;
}

int memscan_add_keys(struct memscan *m, struct e4_fs *fs,
		     struct e4_keystore *ks, struct report *r)
{
	size_t first_derived = m->n_cand;
	char label[600];

	if (fs && per_file_keys(m, fs, r))
		return -1;
	/* whole keys from per-file keys first: the trial of a v1 policy keeps
	 * the first key that decrypts its names best */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < m->n_cand; i++) {
			struct memscan_cand *c = &m->cand[i];
			enum e4_status st;

			if ((pass == 0) != (i >= first_derived && c->o.from_file_keys))
				continue;
			if (c->o.kind == E4_MEMKEY_HKDF) {
				if (e4_hmac_states_identifier(&c->st, c->o.id) != E4_OK)
					continue;
				label_of(m, &c->o, label, sizeof(label));
				st = e4_keystore_add_states(ks, &c->st, label);
				if (st == E4_NOMEM) {
					report_error(r, "out of memory");
					return -1;
				}
				if (st == E4_OK)
					c->o.ks_index = (long)e4_keystore_count(ks) - 1;
				continue;
			}
			if (klass(&c->o) >= 2)
				continue; /* a per-file key or a description: no master key */
			if (c->key.len < E4_MASTER_KEY_MIN)
				continue;
			c->o.key_len = c->key.len;
			e4_e4crypt_descriptor(c->o.id, c->key.raw, c->key.len);
			label_of(m, &c->o, label, sizeof(label));
			st = e4_keystore_add(ks, c->key.raw, c->key.len, label);
			if (st == E4_NOMEM) {
				report_error(r, "out of memory");
				return -1;
			}
			if (st == E4_OK)
				c->o.ks_index = (long)e4_keystore_count(ks) - 1;
		}
	return 0;
}

unsigned int memscan_kind_bit(const struct memscan_origin *o)
{
	return o->from_file_keys ? MEMSCAN_FILE_KEYS : 1u << o->kind;
}

int memscan_described(const struct memscan *m, const uint8_t descriptor[8])
{
	for (size_t i = 0; i < m->n_cand; i++)
		if (m->cand[i].o.kind == E4_MEMKEY_DESCRIPTION &&
		    !memcmp(m->cand[i].o.descriptor, descriptor, 8))
			return 1;
	return 0;
}

size_t memscan_origins(const struct memscan *m)
{
	return m->n_cand;
}

const struct memscan_origin *memscan_origin(const struct memscan *m, size_t i)
{
	return i < m->n_cand ? &m->cand[i].o : NULL;
}

const struct memscan_origin *memscan_origin_of_key(const struct memscan *m,
						   long ks_index)
{
	for (size_t i = 0; ks_index >= 0 && i < m->n_cand; i++)
		if (m->cand[i].o.ks_index == ks_index)
			return &m->cand[i].o;
	return NULL;
}

void memscan_secret(const struct memscan *m, size_t i, const uint8_t **raw,
		    size_t *len, const struct e4_hmac_states **states)
{
	*raw = NULL;
	*len = 0;
	*states = NULL;
	if (i >= m->n_cand)
		return;
	if (m->cand[i].o.kind == E4_MEMKEY_HKDF && !m->cand[i].o.from_file_keys) {
		*states = &m->cand[i].st;
	} else {
		*raw = m->cand[i].key.raw;
		*len = m->cand[i].key.len;
	}
}

void memscan_free(struct memscan *m)
{
	if (m->cand)
		e4_wipe(m->cand, m->cap_cand * sizeof(*m->cand));
	free(m->cand);
	free(m->bucket);
	free(m->cap);
	memset(m, 0, sizeof(*m));
}

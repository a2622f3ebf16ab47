/* Which key opens which policy, and the per-inode ciphers.  A key is
 * trusted for a policy only on evidence: a v2 identifier is a hash of the
 * key that the kernel checks, so a match is enough; a v1 descriptor is a
 * label the image chooses, so a key matched by it (or any key, tried) must
 * also decrypt the policy's names and symlink targets plausibly. */
#include <stdlib.h>
#include <string.h>
#include "dirblock.h"
#include "fs_private.h"
#include "kdf.h"
#include "symlink.h"

static int same_id(const struct e4_context *a, const struct e4_context *b)
{
	return a->version == b->version && a->key_id_size == b->key_id_size &&
	       !memcmp(a->key_id, b->key_id, a->key_id_size);
}

/* Evidence is judged per unit (a directory, or a symlink): a unit counts
 * when most of its names verify, so one damaged directory neither locks a
 * policy nor lets a wrong key's rare lucky names add up. */
struct trial {
	struct e4_cipher *c;
	struct e4_evidence unit;
	unsigned int bits;      /* from units that count */
	size_t names;           /* tried in all */
};

static int trial_done(const struct trial *t)
{
	return e4_trial_ended(t->bits, t->names);
}

static void end_unit(struct trial *t)
{
	if (e4_evidence_trusted(&t->unit))
		t->bits += t->unit.bits;
	t->names += t->unit.names;
	memset(&t->unit, 0, sizeof(t->unit));
}

static int trial_dirent(void *arg, const struct e4_dirent *de)
{
	struct trial *t = arg;
	uint8_t plain[256];
	size_t n = 0;
	int ok;

	if (e4_dirent_is_dot(de))
		return 0;
	ok = e4_decrypt_name(t->c, de->name, de->name_len, plain, &n) == E4_OK;
	e4_evidence_add(&t->unit, ok, plain, de->name_len, n);
	e4_wipe(plain, sizeof(plain));
	return t->names + t->unit.names >= E4_TRIAL_NAMES;
}

/* Quiet: a trial's failures are not the user's concern. */
static void quiet(void *arg, const struct e4_diag *d)
{
	(void)arg, (void)d;
}

static void trial_symlink(struct e4_fs *fs, struct trial *t,
			  const struct e4_inode *in)
{
	uint8_t *blob, *plain;
	const uint8_t *ct;
	size_t size, n, len;

	if (e4_symlink_raw(fs, in, NULL, &blob, &size) != E4_OK)
		return;
	/* evidence only from the stored ciphertext: the header's length,
	 * which must be what i_size holds (else bytes past it would count as
	 * zero padding nobody checked) */
	if (e4_symlink_parse(blob, size, &ct, &len) != E4_OK ||
	    len + E4_SYMLINK_HEADER_SIZE != size) {
		free(blob);
		return;
	}
	plain = malloc(size + 1);
	if (plain) {
		int ok = e4_symlink_decrypt(t->c, blob, size, plain, &n) == E4_OK;

		e4_evidence_add(&t->unit, ok, plain, len, ok ? n : 0);
	}
	if (plain)
		e4_wipe(plain, size + 1);
	free(plain);
	free(blob);
}

static int cmp_id(const void *a, const void *b, void *arg)
{
	const struct e4_enc_inode *v = arg;
	const struct e4_enc_inode *x = &v[*(const size_t *)a];
	const struct e4_enc_inode *y = &v[*(const size_t *)b];
	int c = memcmp(x->ctx.key_id, y->ctx.key_id, E4_KEY_IDENTIFIER_SIZE);

	if (x->ctx.version != y->ctx.version)
		return x->ctx.version < y->ctx.version ? -1 : 1;
	return c ? c : (x->ino > y->ino) - (x->ino < y->ino);
}

static int key_cmp(const struct e4_context *a, const struct e4_context *b)
{
	if (a->version != b->version)
		return a->version < b->version ? -1 : 1;
	return memcmp(a->key_id, b->key_id, E4_KEY_IDENTIFIER_SIZE);
}

/* The positions in the index of the inodes of policy (by key id), in
 * inode order: *first and the count.  The order is made once. */
static size_t policy_range(struct e4_fs *fs, const struct e4_enc_inode *v,
			   size_t n, const struct e4_context *policy,
			   size_t *first)
{
	size_t lo = 0, hi, m = 0;

	if (!fs->by_policy) {
		fs->by_policy = malloc((n ? n : 1) * sizeof(*fs->by_policy));
		if (!fs->by_policy)
			return 0;
		for (size_t i = 0; i < n; i++)
			if (v[i].ctx_status == E4_OK)
				fs->by_policy[m++] = i;
		fs->nby_policy = m;
		qsort_r(fs->by_policy, m, sizeof(*fs->by_policy), cmp_id,
			(void *)v);
	}
	hi = fs->nby_policy;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(&v[fs->by_policy[mid]].ctx, policy) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (hi = lo; hi < fs->nby_policy && !key_cmp(&v[fs->by_policy[hi]].ctx, policy); hi++)
		;
	return hi - lo;
}

/* The algorithms, fetched at the first key setup (a listing without keys
 * needs none): NULL when that fails, and each setup fetches its own. */
static const struct e4_algs *algs_of(struct e4_fs *fs)
{
	if (!fs->algs)
		e4_algs_new(&fs->algs);
	return fs->algs;
}

/* One unit of evidence: directory or symlink in, of context ctx. */
static void trial_unit(struct e4_fs *fs, struct trial *t,
		       const struct e4_master_key *k,
		       const struct e4_context *ctx, const struct e4_inode *in)
{
	if (e4_keysetup_inode_algs(algs_of(fs), k, ctx, in->ino, fs->info.uuid,
				   E4_KEY_NAMES, &t->c) != E4_OK)
		return;
	if (E4_ISDIR(in->mode))
		e4_dir_iterate(fs, in, NULL, trial_dirent, t, NULL);
	else
		trial_symlink(fs, t, in);
	e4_cipher_free(t->c);
	t->c = NULL;
	end_unit(t);
}

/* The directory being listed, when it has policy's names: tried first,
 * since it is being read anyway and usually decides alone. */
static uint32_t trial_hint(struct e4_fs *fs, struct trial *t,
			   const struct e4_master_key *k,
			   const struct e4_context *policy)
{
	struct e4_inode in;
	struct e4_context ctx;
	const char *why;

	if (!fs->trial_hint ||
	    e4_inode_read(fs, fs->trial_hint, NULL, &in) != E4_OK ||
	    !E4_ISDIR(in.mode) ||
	    e4_inode_context(fs, &in, &ctx, &why) != E4_OK ||
	    !same_id(&ctx, policy) ||
	    ctx.filenames_mode != policy->filenames_mode)
		return 0;
	trial_unit(fs, t, k, &ctx, &in);
	return in.ino;
}

/* Evidence that key k opens policy, from the names of the policy's
 * directories and its symlink targets (the directory at hand first, then
 * the others in inode order): the bits when they suffice, else 0. */
static unsigned int trial_key(struct e4_fs *fs, const struct e4_master_key *k,
			      const struct e4_context *policy)
{
	const struct e4_enc_inode *v;
	size_t n, first, count, u;
	struct trial t;
	e4_diag_fn diag = fs->opt.diag;
	uint32_t hint;

	memset(&t, 0, sizeof(t));
	fs->opt.diag = quiet;
	hint = trial_hint(fs, &t, k, policy);
	fs->opt.diag = diag;
	if (trial_done(&t))
		return e4_trial_accepts(t.bits, 0) ? t.bits : 0;
	/* the index next, with its diagnostics (the trial is quiet) */
	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) == E4_NOMEM)
		return 0;
	count = policy_range(fs, v, n, policy, &first);
	fs->opt.diag = quiet;
	for (u = 0; u < count && !trial_done(&t); u++) {
		size_t i = fs->by_policy[first + u];
		struct e4_inode in;

		if (v[i].ino == hint || v[i].ctx_status != E4_OK ||
		    !same_id(&v[i].ctx, policy) ||
		    v[i].ctx.filenames_mode != policy->filenames_mode ||
		    !(E4_ISDIR(v[i].mode) || E4_ISLNK(v[i].mode)))
			continue;
		if (e4_inode_read(fs, v[i].ino, NULL, &in) != E4_OK)
			continue;
		trial_unit(fs, &t, k, &v[i].ctx, &in);
	}
	fs->opt.diag = diag;
	return e4_trial_accepts(t.bits, u == count) ? t.bits : 0;
}

static void decide(struct e4_fs *fs, struct e4_policy_slot *s)
{
	const struct e4_context *ctx = &s->policy;
	const struct e4_keystore *ks = fs->opt.keys;
	size_t nkeys = e4_keystore_count(ks);
	long match = e4_keystore_match(ks, ctx);
	struct e4_policy_key *pk = &s->key;

	s->decided = 1;
	if (fs->nkey_used < nkeys) {
		uint8_t *u = realloc(fs->key_used, nkeys);

		if (u) {
			memset(u + fs->nkey_used, 0, nkeys - fs->nkey_used);
			fs->key_used = u;
			fs->nkey_used = nkeys;
		}
	}
	pk->open = 0;
	pk->key = -1;
	if (fs->opt.dummy_key_2015 && e4_context_is_dummy_2015(ctx)) {
		pk->open = 1;
		pk->how = "--dummy-key (0x42 repeated, no derivation)";
		return;
	}
	if (!nkeys) {
		pk->how = "no key given";
		return;
	}
	if (ctx->version == E4_CONTEXT_V2) {
		if (match >= 0) {
			pk->open = 1;
			pk->key = match;
			pk->how = e4_keystore_key(ks, (size_t)match)->is_states ?
				  "identifier = HKDF-Expand of the key's HMAC states" :
				  "identifier = HKDF-SHA512(key)";
		} else {
			pk->how = "none of the given keys has its identifier";
		}
		return;
	}
	if (ctx->version != E4_CONTEXT_V1) {
		pk->how = "unknown policy version";
		return;
	}
	/* v1: the descriptor's key first, then any key; each on evidence. */
	if (match >= 0 && trial_key(fs, e4_keystore_key(ks, (size_t)match), ctx)) {
		pk->open = 1;
		pk->key = match;
		pk->how = "descriptor = SHA-512(SHA-512(key)), names verified";
		return;
	}
	{
		unsigned int best = 0;

		for (size_t i = 0; i < nkeys; i++) {
			unsigned int bits;

			if ((long)i == match ||
			    !e4_key_fits(e4_keystore_key(ks, i), ctx))
				continue;
			bits = trial_key(fs, e4_keystore_key(ks, i), ctx);
			if (bits > best) {
				best = bits;
				pk->key = (long)i;
			}
		}
		if (best) {
			pk->open = 1;
			pk->how = "trial decryption of names";
			return;
		}
	}
	pk->key = -1;
	pk->how = match >= 0 ?
		"the key with its descriptor does not decrypt its names" :
		"none of the given keys opens it";
}

static size_t id_hash(const struct e4_context *ctx)
{
	uint64_t h = 1469598103934665603ULL ^ ctx->version;

	for (unsigned int i = 0; i < ctx->key_id_size; i++)
		h = (h ^ ctx->key_id[i]) * 1099511628211ULL;
	return (size_t)h;
}

/* The slot of ctx's policy (made on first use): a hash table, so an image
 * of many policies costs one lookup each. */
static struct e4_policy_slot *slot_for(struct e4_fs *fs,
				       const struct e4_context *ctx)
{
	struct e4_policy_slot *s;
	size_t j;

	if ((fs->nslots + 1) * 2 > fs->capslots) {
		size_t cap = fs->capslots ? 2 * fs->capslots : 16;
		struct e4_policy_slot **t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < fs->capslots; i++) {
			if (!fs->slots[i])
				continue;
			for (j = id_hash(&fs->slots[i]->policy) & (cap - 1); t[j];
			     j = (j + 1) & (cap - 1))
				;
			t[j] = fs->slots[i];
		}
		free(fs->slots);
		fs->slots = t;
		fs->capslots = cap;
	}
	for (j = id_hash(ctx) & (fs->capslots - 1); fs->slots[j];
	     j = (j + 1) & (fs->capslots - 1))
		if (same_id(&fs->slots[j]->policy, ctx))
			return fs->slots[j];
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->policy = *ctx;
	fs->slots[j] = s;
	fs->nslots++;
	return s;
}

enum e4_status e4_fs_policy_key(struct e4_fs *fs, const struct e4_context *ctx,
				struct e4_policy_key *out)
{
	struct e4_policy_slot *s = slot_for(fs, ctx);

	if (!s) {
		*out = (struct e4_policy_key){ 0, -1, "out of memory" };
		return E4_NOMEM;
	}
	if (!s->decided) {
		/* the trial may meet this policy again: decide once */
		s->decided = 1;
		s->key.how = "being decided";
		decide(fs, s);
	}
	*out = s->key;
	if (!s->key.open)
		return E4_NO_KEY;
	if (s->key.key >= 0 && (size_t)s->key.key < fs->nkey_used)
		fs->key_used[s->key.key] = 1;
	return E4_OK;
}

int e4_fs_key_used(const struct e4_fs *fs, size_t i)
{
	return i < fs->nkey_used && fs->key_used[i];
}

/* Say once per policy what opens it, or that nothing does. */
static void report_policy(struct e4_fs *fs, const struct e4_context *ctx)
{
	struct e4_policy_slot *s = slot_for(fs, ctx);
	const char *kind = ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier";
	char hex[33];

	if (!s || s->reported)
		return;
	s->reported = 1;
	e4_context_key_id_hex(ctx, hex);
	if (s->key.open && s->key.key >= 0)
		e4_report(fs, E4_DIAG_INFO, E4_OK, 0, NULL, "key %s opens %s %s (%s)",
			  e4_keystore_key(fs->opt.keys, (size_t)s->key.key)->label,
			  kind, hex, s->key.how);
	else if (s->key.open)
		e4_report(fs, E4_DIAG_INFO, E4_OK, 0, NULL,
			  "the seed's dummy key opens descriptor %s", hex);
	else
		e4_report_p(fs, fs->opt.listing ? E4_DIAG_NOTE : E4_DIAG_ERROR,
			    E4_NO_KEY, E4_P_NO_KEY, 0, NULL, "no key for %s %s (%s)%s",
			    kind, hex, s->key.how,
			    fs->opt.listing ? ": showing no-key names" : "");
}

enum e4_status e4_fs_inode_cipher(struct e4_fs *fs, uint32_t ino,
				  const struct e4_context *ctx,
				  enum e4_key_use use, struct e4_cipher **out)
{
	struct e4_policy_key pk;
	const struct e4_master_key *k;
	enum e4_status st;

	if (out)
		*out = NULL;
	st = e4_fs_policy_key(fs, ctx, &pk);
	report_policy(fs, ctx);
	if (st != E4_OK || !out)
		return st;
	if (pk.key < 0)
		return e4_keysetup_dummy_2015(ctx, use, out);
	k = e4_keystore_key(fs->opt.keys, (size_t)pk.key);
	return e4_keysetup_inode_algs(algs_of(fs), k, ctx, ino, fs->info.uuid,
				      use, out);
}

enum e4_status e4_fs_inode_cipher_reported(struct e4_fs *fs, uint32_t ino,
					   const struct e4_context *ctx,
					   enum e4_key_use use,
					   const char *path,
					   struct e4_cipher **out)
{
	enum e4_status st = e4_fs_inode_cipher(fs, ino, ctx, use, out);
	char hex[33];

	switch (st) {
	case E4_OK:
		break;
	case E4_NO_KEY:
		e4_context_key_id_hex(ctx, hex);
		e4_report(fs, E4_DIAG_ERROR, st, ino, path,
			  "skipped: no key for %s %s",
			  ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
			  hex);
		break;
	case E4_UNSUPPORTED:
	case E4_UNRECOGNIZED:
		e4_report(fs, E4_DIAG_ERROR, st, ino, path,
			  "unsupported encryption mode %u",
			  use == E4_KEY_NAMES ? ctx->filenames_mode :
						ctx->contents_mode);
		break;
	default:
		e4_report(fs, E4_DIAG_ERROR, st, ino, path,
			  "cannot set up decryption: %s", e4_status_str(st));
		break;
	}
	return st;
}

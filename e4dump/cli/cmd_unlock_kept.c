/* e4dump unlock-kept EXPORT -o OUT: finish an `extract --keep-locked`
 * from the export alone (kept.h), without the image, when a key turns up:
 * names of locked directories, contents and symlink targets are decrypted
 * with the library's per-inode key setup and ciphers (the same functions
 * extract uses), with the filesystem UUID and block size the export
 * saved.  Everything else of the export is copied as it is.  What no key
 * given opens stays kept: its ciphertext, sidecar and directory file go
 * to OUT, which is then an export again.  OUT is written through outdir.c
 * (relative to directory descriptors, never following a symlink). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cipher.h"
#include "commands.h"
#include "escape.h"
#include "filewriter.h"
#include "jsonout.h"
#include "kdf.h"
#include "keyload.h"
#include "keysetup.h"
#include "kept.h"
#include "manifest.h"
#include "nameset.h"
#include "outdir.h"
#include "record.h"
#include "symlink.h"

#define MAX_JSON ((size_t)1 << 30)   /* a directory file of 4M entries */
/* directories deeper are not entered (each level holds two descriptors
 * and a frame of about 2 KiB) */
#define MAX_DEPTH 1024

/* A policy (by its key identifier), the key that opens it, and while it
 * is undecided, each key's trial on the names of its locked directories
 * (the library's rule, as image/fs/keys.c: bits from directories most of
 * whose names verify, e4_trial_ended, e4_trial_accepts). */
struct pol {
	struct e4_context ctx;
	int decided;
	long key;               /* -1: none opens it */
	unsigned int *bits;     /* per key (decide_keys), or NULL */
	size_t *names;
	unsigned char *cut;     /* a unit was left out: the trial ended */
};

struct uk {
	const struct options *o;
	struct report *r;
	struct e4_keystore *ks;
	struct outdir od;
	uint8_t uuid[16];
	unsigned int bs;
	json_object *header;
	struct pol *pols;       /* open addressing by key identifier */
	size_t npols, slots;
	struct manifest *man;
	size_t dirs, files, symlinks, copied, kept, skipped;
	size_t dir_files;       /* directory files written: OUT is an export */
	size_t names_kept;      /* directories whose names stay locked */
};

/* The mode bits made: set-user-ID and set-group-ID only with
 * --keep-setid, as extract does (a decrypted file is a copy, not an
 * installed program). */
static mode_t setid_mask(const struct uk *u)
{
	return u->o->keep_setid ? 07777 : 01777;
}

static int hexfield(json_object *o, const char *k, uint8_t *out, size_t max)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	return (int)kept_unhex(json_object_get_string(v), out, max);
}

static int64_t intfield(json_object *o, const char *k, int64_t dflt)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int64(v);
}

static json_object *field(json_object *o, const char *k, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* A JSON file of the export (name in dirfd, not followed), or NULL. */
static json_object *read_json(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	json_object *o = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_JSON ||
	    !(buf = malloc((size_t)st.st_size + 1)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	buf[got] = 0;
	o = json_tokener_parse(buf);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
out:
	free(buf);
	close(fd);
	return o;
}

static int same_policy_id(const struct e4_context *a, const struct e4_context *b)
{
	return a->version == b->version && a->key_id_size == b->key_id_size &&
	       !memcmp(a->key_id, b->key_id, a->key_id_size);
}

/* Decrypt a directory's stored names with c: each entry gets "plain_hex"
 * (a valid name) or none; the evidence over them into ev.  A trial (keep
 * 0) tries at most max names. */
static void decrypt_names(struct e4_cipher *c, json_object *entries,
			  struct e4_evidence *ev, int keep, size_t max)
{
	size_t n = json_object_array_length(entries);

	if (!keep && n > max)
		n = max;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(entries, i);
		uint8_t raw[256], plain[256];
		int len = hexfield(e, "raw_name_hex", raw, 255);
		size_t m = 0;
		int ok;

		if (!json_object_is_type(e, json_type_object))
			continue; /* not an entry: index_names lists none */
		if (keep) /* only what decrypts here is a name */
			json_object_object_del(e, "plain_hex");
		if (len <= 0)
			continue;
		ok = e4_decrypt_name(c, raw, (size_t)len, plain, &m) == E4_OK;
		e4_evidence_add(ev, ok, plain, (size_t)len, ok ? m : 0);
		if (keep && ok)
			json_object_object_add(e, "plain_hex", json_hex(plain, m));
		e4_wipe(plain, sizeof(plain));
	}
}

static size_t pol_hash(const struct e4_context *c)
{
	size_t h = 1469598103934665603ull ^ c->version;

	for (size_t i = 0; i < c->key_id_size; i++)
		h = (h ^ c->key_id[i]) * 1099511628211ull;
	return h;
}

/* The slot of ctx's policy in the table (empty: key_id_size 0). */
static struct pol *pol_slot(struct uk *u, const struct e4_context *ctx)
{
	size_t i = pol_hash(ctx) & (u->slots - 1);

	while (u->pols[i].ctx.key_id_size && !same_policy_id(&u->pols[i].ctx, ctx))
		i = (i + 1) & (u->slots - 1);
	return &u->pols[i];
}

static void pol_free(struct pol *p)
{
	free(p->bits);
	free(p->names);
	free(p->cut);
	p->bits = NULL;
	p->names = NULL;
	p->cut = NULL;
}

/* ctx's policy, added undecided when new; NULL when out of memory.  The
 * table grows by doubling (at most half full): constant time per look-up. */
static struct pol *pol_get(struct uk *u, const struct e4_context *ctx)
{
	struct pol *p;

	if (2 * (u->npols + 1) > u->slots) {
		size_t slots = u->slots ? 2 * u->slots : 64, old = u->slots;
		struct pol *v = calloc(slots, sizeof(*v)), *was = u->pols;

		if (!v)
			return NULL;
		u->pols = v;
		u->slots = slots;
		for (size_t i = 0; i < old; i++)
			if (was[i].ctx.key_id_size)
				*pol_slot(u, &was[i].ctx) = was[i];
		free(was);
	}
	p = pol_slot(u, ctx);
	if (!p->ctx.key_id_size) {
		memset(p, 0, sizeof(*p));
		p->ctx = *ctx;
		p->key = -1;
		u->npols++;
	}
	return p;
}

/* Key k's trial on one locked directory of p's policy (its stored names,
 * one unit of evidence), unless its trial has ended. */
static void trial_unit(struct uk *u, struct pol *p, size_t k, json_object *ents,
		       const struct e4_context *ctx, uint32_t ino)
{
	const struct e4_master_key *key = e4_keystore_key(u->ks, k);
	struct e4_cipher *c;
	struct e4_evidence ev;

	if (e4_trial_ended(p->bits[k], p->names[k])) {
		p->cut[k] = 1;
		return;
	}
	if (!e4_key_fits(key, ctx) ||
	    e4_keysetup_inode(key, ctx, ino, u->uuid, E4_KEY_NAMES, &c) != E4_OK)
		return;
	memset(&ev, 0, sizeof(ev));
	/* the unit is cut where the trial's names run out, as keys.c's */
	if (json_object_array_length(ents) > E4_TRIAL_NAMES - p->names[k])
		p->cut[k] = 1;
	decrypt_names(c, ents, &ev, 0, E4_TRIAL_NAMES - p->names[k]);
	e4_cipher_free(c);
	if (e4_evidence_trusted(&ev))
		p->bits[k] += ev.bits;
	p->names[k] += ev.names;
}

/* Pass 1: the v1 keys tried on the names of every locked directory of
 * the export, one directory read at a time (each key's trial of a policy
 * ends after E4_TRIAL_NAMES names: linear work, memory of one directory). */
static void scan(struct uk *u, int dirfd, unsigned int depth)
{
	json_object *d = read_json(dirfd, KEPT_DIR_FILE);
	size_t nkeys = e4_keystore_count(u->ks);
	DIR *dp;
	struct dirent *de;
	int fd;

	if (d) {
		json_object *later = field(d, "decrypt_later", json_type_object);
		json_object *ents = field(d, "entries", json_type_array);
		json_object *lk = field(d, "names_locked", json_type_boolean);
		struct e4_context ctx;
		struct pol *p;
		uint32_t ino;

		if (ents && lk && json_object_get_boolean(lk) &&
		    !kept_later_context(later, &ctx, &ino) && ctx.version == E4_CONTEXT_V1 &&
		    (p = pol_get(u, &ctx))) {
			if (!p->bits) {
				p->bits = calloc(nkeys, sizeof(*p->bits));
				p->names = calloc(nkeys, sizeof(*p->names));
				p->cut = calloc(nkeys, 1);
			}
			for (size_t k = 0; p->bits && p->names && p->cut && k < nkeys; k++)
				trial_unit(u, p, k, ents, &ctx, ino);
		}
		json_object_put(d);
	}
	if (depth >= MAX_DEPTH || (fd = dup(dirfd)) < 0)
		return;
	if (!(dp = fdopendir(fd))) {
		close(fd);
		return;
	}
	rewinddir(dp); /* the offset is shared with dirfd */
	while ((de = readdir(dp))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			scan(u, sub, depth + 1);
			close(sub);
		}
	}
	closedir(dp);
}

/* Does key k's trial open p's v1 policy: its bits, or 0. */
static unsigned int trial_bits(const struct pol *p, long k)
{
	if (k < 0 || !p->bits)
		return 0;
	return e4_trial_accepts(p->bits[k], !p->cut[k]) ? p->bits[k] : 0;
}

/* The key that opens ctx's policy (decided once per policy, on the
 * trials of pass 1), or NULL. */
static const struct e4_master_key *policy_key(struct uk *u, const struct e4_context *ctx)
{
	struct pol *p = pol_get(u, ctx);
	size_t nkeys = e4_keystore_count(u->ks);
	unsigned int best = 0;
	long match;
	char hex[33];

	if (!p)
		return NULL;
	if (p->decided)
		return p->key >= 0 ? e4_keystore_key(u->ks, (size_t)p->key) : NULL;
	p->decided = 1;
	match = e4_keystore_match(u->ks, ctx);
	if (ctx->version == E4_CONTEXT_V2) {
		p->key = match;
	} else if (trial_bits(p, match)) {
		p->key = match;
	} else {
		for (size_t i = 0; i < nkeys; i++)
			if ((long)i != match && trial_bits(p, (long)i) > best) {
				best = trial_bits(p, (long)i);
				p->key = (long)i;
			}
	}
	pol_free(p);
	e4_context_key_id_hex(ctx, hex);
	if (p->key >= 0)
		report_info(u->r, "key %s opens %s %s", e4_keystore_key(u->ks, (size_t)p->key)->label,
			    ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", hex);
	else
		report_error(u->r, "no key for %s %s: its entries stay kept",
			     ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", hex);
	return p->key >= 0 ? e4_keystore_key(u->ks, (size_t)p->key) : NULL;
}

/* The cipher of an inode (decrypt_later) for use, or NULL (no key: kept). */
static struct e4_cipher *cipher_of(struct uk *u, json_object *later, enum e4_key_use use,
				   const char *shown)
{
	struct e4_context ctx;
	const struct e4_master_key *k;
	struct e4_cipher *c = NULL;
	uint32_t ino;
	enum e4_status st;

	if (kept_later_context(later, &ctx, &ino)) {
		report_error_at(u->r, shown, 0, "its saved encryption context is missing or bad");
		return NULL;
	}
	if (!(k = policy_key(u, &ctx)))
		return NULL;
	st = e4_keysetup_inode(k, &ctx, ino, u->uuid, use, &c);
	if (st != E4_OK)
		report_error_at(u->r, shown, ino, "cannot set up decryption: %s", e4_status_str(st));
	return c;
}

static void later_times(json_object *later, struct timespec ts[2])
{
	struct e4_inode in;

	kept_later_inode(later, &in);
	ts[0].tv_sec = (time_t)in.atime.sec;
	ts[0].tv_nsec = in.atime.nsec;
	ts[1].tv_sec = (time_t)in.mtime.sec;
	ts[1].tv_nsec = in.mtime.nsec;
}

/* manifest_hash of a file of the export or OUT ("-" above
 * MANIFEST_MAX_HASHED, as extract hashed it). */
static int hash_of(int dirfd, const char *name, char hashes[MANIFEST_HASHES])
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int rc = fd < 0 || fstat(fd, &st) ||
		 manifest_hash(fd, (uint64_t)st.st_size, hashes) ? -1 : 0;

	if (fd >= 0)
		close(fd);
	return rc;
}

/* dir's path and a name of n bytes, escaped as the walker shows it. */
static char *join(const char *dir, const uint8_t *name, size_t n)
{
	char *esc = malloc(E4_ESCAPE_SIZE(n)), *p = NULL;

	if (!esc)
		return NULL;
	e4_escape(name, n, esc, E4_ESCAPE_SLASH);
	if (asprintf(&p, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", esc) < 0)
		p = NULL;
	free(esc);
	return p;
}

/* The record of an entry the export holds the inode of (later); an entry
 * without one was written in the clear by extract, whose record it has.
 * shown: its path in the image as the export saved it, or NULL. */
static void emit(struct uk *u, const char *shown, const char *rel, json_object *later,
		 const char *status, const char *hashes, const char *target, size_t tlen)
{
	char noname[16];
	struct record rec;
	struct e4_inode in;
	struct e4_context ctx;
	const struct e4_master_key *k = NULL;
	uint32_t ino;
	int have_ctx;
	json_object *o;

	if (!u->o->json || !later)
		return;
	kept_later_inode(later, &in);
	have_ctx = kept_later_context(later, &ctx, &ino) == 0;
	if (!shown) {
		/* the export saved no path for it: an inode without a name */
		snprintf(noname, sizeof(noname), "<%" PRIu32 ">", in.ino);
		shown = noname;
	}
	if (have_ctx && strcmp(status, "locked"))
		k = policy_key(u, &ctx);
	record_init(&rec, "extracted");
	if (record_from_export(&rec, &in, have_ctx ? &ctx : NULL, k ? k->label : NULL,
			       target, tlen, shown) ||
	    (rel && record_set_output(&rec, rel))) {
		record_free(&rec);
		return;
	}
	if (hashes && hashes[0])
		record_set_hashes(&rec, strcmp(status, "locked") ? "plaintext" : "ciphertext", hashes);
	rec.status = status;
	o = record_json(&rec);
	record_free(&rec);
	if (o)
		json_emit(o);
}

/* A kept file decrypted into name in dst: its initialized data units,
 * each decrypted where it was stored, the rest holes; i_size bytes. */
static int decrypt_file(struct uk *u, int src, const char *cname, json_object *side,
			int dst, const char *name, struct e4_cipher *c, const char *shown)
{
	json_object *later = field(side, "decrypt_later", json_type_object);
	json_object *units = field(later, "data_units", json_type_array);
	json_object *h = field(side, "hashes", json_type_object);
	json_object *want = field(h, "sha256", json_type_string);
	uint64_t size = (uint64_t)intfield(later, "i_size", -1);
	uint64_t nblocks = (size + u->bs - 1) / u->bs;
	mode_t mode = (mode_t)(intfield(later, "i_mode", 0) & setid_mask(u));
	char hashes[MANIFEST_HASHES];
	struct timespec ts[2];
	struct out_file f;
	struct stat st;
	uint8_t *in = NULL, *out = NULL;
	uint64_t end = 0;       /* the data units are in ascending order, */
	int fd, rc = -1;        /* each once: work linear in the file */

	if (!units || intfield(later, "i_size", -1) < 0) {
		report_error_at(u->r, shown, 0, "its sidecar lacks the data-unit layout");
		return -1;
	}
	/* not hashed by extract (MANIFEST_MAX_HASHED): nothing to compare */
	if (want && (hash_of(src, cname, hashes) || hashes[0] == '-' ||
		     strncmp(hashes + 32 + 1 + 40 + 1, json_object_get_string(want), 64))) {
		report_error_at(u->r, shown, 0, "its ciphertext file is not what was kept (SHA-256 differs)");
		return -1;
	}
	fd = openat(src, cname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < nblocks * u->bs) {
		report_error_at(u->r, shown, 0, "its ciphertext file is shorter than its i_size");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (outdir_file_open(&u->od, dst, name, mode, &f)) {
		report_error_at(u->r, shown, 0, "cannot create: %s", strerror(errno));
		close(fd);
		return -1;
	}
	in = malloc(u->bs);
	out = malloc(u->bs);
	if (!in || !out || ftruncate(f.fd, (off_t)size))
		goto fail;
	for (size_t i = 0; i < json_object_array_length(units); i++) {
		json_object *r = json_object_array_get_idx(units, i);
		uint64_t first, count;

		if (!json_object_is_type(r, json_type_array) || json_object_array_length(r) != 2)
			goto bad;
		first = (uint64_t)json_object_get_int64(json_object_array_get_idx(r, 0));
		count = (uint64_t)json_object_get_int64(json_object_array_get_idx(r, 1));
		if (first >= nblocks || count > nblocks - first)
			goto bad;
		if (first < end)
			goto unordered;
		end = first + count;
		for (uint64_t b = first; b < first + count; b++) {
			uint64_t off = b * u->bs, n = size - off < u->bs ? size - off : u->bs;

			if (pread(fd, in, u->bs, (off_t)off) != (ssize_t)u->bs ||
			    e4_decrypt_data_unit(c, b, in, out, u->bs) != E4_OK ||
			    pwrite_all(f.fd, out, (size_t)n, off))
				goto fail;
		}
	}
	later_times(later, ts);
	if (fchmod(f.fd, mode) || futimens(f.fd, ts))
		goto fail;
	rc = 0;
	goto done;
bad:
	report_error_at(u->r, shown, 0, "its sidecar's data units run past its i_size");
	outdir_file_abort(&f);
	goto out;
unordered:
	report_error_at(u->r, shown, 0, "its sidecar's data units overlap or are out of order");
	outdir_file_abort(&f);
	goto out;
fail:
	report_error_at(u->r, shown, 0, "cannot decrypt into the output: %s", strerror(errno));
	outdir_file_abort(&f);
	rc = -2;
	goto out;
done:
	if (outdir_file_commit(&u->od, &f)) {
		report_error_at(u->r, shown, 0, "cannot write: %s", strerror(errno));
		rc = -2;
	}
out:
	if (out)
		e4_wipe(out, u->bs);
	free(in);
	free(out);
	close(fd);
	return rc;
}

/* Copy name of src (a regular file) into dst, with its mode and times. */
static int copy_file(struct uk *u, int src, const char *sname, int dst,
		     const char *dname, const char *shown)
{
	int fd = openat(src, sname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	static uint8_t buf[1 << 16];
	struct out_file f;
	struct stat st;
	struct timespec ts[2];
	uint64_t off = 0;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) || outdir_file_open(&u->od, dst, dname, st.st_mode & setid_mask(u), &f)) {
		report_error_at(u->r, shown, 0, "cannot copy: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (pwrite_all(f.fd, buf, (size_t)n, off))
			break;
		off += (uint64_t)n;
	}
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (n != 0 || fchmod(f.fd, st.st_mode & setid_mask(u)) || futimens(f.fd, ts)) {
		report_error_at(u->r, shown, 0, "cannot copy: %s", strerror(errno));
		outdir_file_abort(&f);
		close(fd);
		return -1;
	}
	close(fd);
	return outdir_file_commit(&u->od, &f);
}

static int copy_symlink(struct uk *u, int src, const char *sname, int dst,
			const char *dname, const char *target_in, const struct timespec *tsin)
{
	char target[4097];
	struct stat st;
	struct timespec ts[2];
	ssize_t n;

	if (!target_in) {
		if (fstatat(src, sname, &st, AT_SYMLINK_NOFOLLOW) ||
		    (n = readlinkat(src, sname, target, sizeof(target) - 1)) < 0)
			return -1;
		target[n] = 0;
		target_in = target;
		ts[0] = st.st_atim;
		ts[1] = st.st_mtim;
		tsin = ts;
	}
	if (outdir_symlink(&u->od, target_in, dst, dname))
		return -1;
	utimensat(dst, dname, tsin, AT_SYMLINK_NOFOLLOW);
	return 0;
}

/* The output name for a name of len bytes (inode ino) in names: escaped
 * and made unique as extract makes it (out_name in cmd_extract.c).  next:
 * per first escaped form, the k to try next, so that N entries of one
 * name cost N tries, not N^2. */
static void out_name(struct nameset *names, json_object *next, const char *name,
		     size_t len, unsigned long ino, char out[OUTDIR_NAME_MAX])
{
	char first[OUTDIR_NAME_MAX];
	json_object *v;
	unsigned int k = 1;

	outdir_escape(name, len, ino, out);
	if (nameset_add(names, out) != 0)
		return;
	memcpy(first, out, OUTDIR_NAME_MAX);
	if (json_object_object_get_ex(next, first, &v))
		k = (unsigned int)json_object_get_int64(v);
	for (; k < 1000000; k++) {
		outdir_escape_again(name, len, ino, k, out);
		if (nameset_add(names, out) != 0)
			break;
	}
	json_object_object_add(next, first, json_object_new_int64(k + 1));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A subdirectory of the directory at hand, entered once that directory's
 * entries are done and released. */
struct sub {
	char *sname, *dname;    /* in the export, in OUT */
	char *path;             /* its path in the image, or NULL (its own
				 * directory file says) */
	char *orel;             /* its path in OUT */
	char *label;            /* what a message names it by */
};

/* One directory of the export being unlocked (unlock_dir): what its
 * directory file says and what its entries make of it. */
struct udir {
	int src, dst, top;
	unsigned int depth;
	const char *rel;        /* its path in OUT ("" for OUT) */
	json_object *dfile;     /* its directory file, or NULL */
	json_object *later;     /* its own inode (held past dfile), or NULL */
	json_object *ents;      /* dfile's entries, or NULL */
	char *shown;            /* its path in the image, or NULL */
	char *label;            /* what a message names it by */
	int names_locked, keep_names;
	struct e4_cipher *nc;   /* its names' cipher when they decrypt */
	json_object *by_name;   /* stored name (hex): its entry; a sidecar's: null */
	struct nameset names;   /* the names made in OUT */
	json_object *next;      /* out_name's k to try next, per name */
	json_object *kept_out;  /* the entries that stay kept */
	char **list;            /* its names in the export, sorted */
	size_t nlist;
	struct sub *subs;       /* its subdirectories, entered last */
	size_t nsubs, capsubs;
};

/* One entry of the directory at hand. */
struct uentry {
	const char *sname;              /* its name in the export */
	char dname[OUTDIR_NAME_MAX];    /* its name in OUT */
	json_object *ent;               /* its stored entry, or NULL */
	json_object *side;              /* its sidecar, or NULL */
	struct stat st;                 /* in the export */
	char *path;                     /* its path in the image, or NULL */
	char *orel;                     /* its path in OUT */
	char *lab;                      /* what a message names it by */
};

/* A kept entry left kept in OUT: its ciphertext and sidecar copied.
 * e->path: its path in the image (NULL: its sidecar's stays); e->lab:
 * what messages name it by. */
static void keep_entry(struct uk *u, struct udir *d, struct uentry *e, int is_link)
{
	char sc[OUTDIR_NAME_MAX + 32], hashes[MANIFEST_HASHES] = "";
	json_object *o = json_object_get(e->ent);
	json_object *later = field(e->side, "decrypt_later", json_type_object);

	json_object *nk = field(e->side, "symlink_nokey_target", json_type_string);

	(void)kept_sidecar_name(&d->names, e->dname, (uint32_t)intfield(later, "inode", 0), sc);
	if ((is_link ? copy_symlink(u, d->src, e->sname, d->dst, e->dname, NULL, NULL) :
		       copy_file(u, d->src, e->sname, d->dst, e->dname, e->lab))) {
		report_error_at(u->r, e->lab, 0, "cannot keep it: %s", strerror(errno));
		u->skipped++;
		json_object_put(o);
		return;
	}
	/* its record says where it is now (the names decrypted above it) */
	if (e->path)
		json_object_object_add(e->side, "path", json_object_new_string(e->path));
	json_object_object_add(e->side, "output_path", json_name(e->orel));
	json_object_object_add(e->side, "ciphertext_file", json_name(e->dname));
	if (kept_write_json(&u->od, d->dst, sc, e->side))
		report_error_at(u->r, e->lab, 0, "cannot write its sidecar: %s", strerror(errno));
	json_object_object_add(o, "name", json_name(e->dname));
	json_object_object_add(o, "name_hex", json_hex((const uint8_t *)e->dname, strlen(e->dname)));
	json_object_object_add(o, "sidecar", json_name(sc));
	json_object_object_add(o, "sidecar_hex", json_hex((const uint8_t *)sc, strlen(sc)));
	json_object_object_del(o, "plain_hex");
	json_object_array_add(d->kept_out, o);
	if (!is_link)
		hash_of(d->dst, e->dname, hashes);
	/* a symlink kept: its no-key target, as extract's record */
	emit(u, e->path, e->orel, later, "locked", hashes, nk ? json_object_get_string(nk) : NULL,
	     nk ? (size_t)json_object_get_string_len(nk) : 0);
	u->kept++;
}

/* What a message names an entry by: its path in the image, or when the
 * export saved none for it, where it goes in OUT. */
static char *label_of(struct uk *u, const char *path, const char *orel)
{
	char *l = NULL;

	if (path)
		return strdup(path);
	if (asprintf(&l, "%s/%s", u->o->out_dir, orel ? orel : "") < 0)
		l = NULL;
	return l;
}

/* The path in the image of an entry of the directory at hand (shown: its
 * path, or NULL), from what the export saved of the entry: its name
 * decrypted (plain[pl]), else its stored name when it is a plain one,
 * else its sidecar's record; NULL when none says (a directory's own
 * directory file may).  Never from a name in the export. */
static char *entry_path(const char *shown, const uint8_t *plain, int pl,
			json_object *ent, json_object *side)
{
	json_object *st = field(ent, "name_state", json_type_string);
	json_object *raw = field(ent, "raw_name_hex", json_type_string);
	json_object *sp = field(side, "path", json_type_string);
	uint8_t name[256];
	long n;

	if (shown && pl > 0)
		return join(shown, plain, (size_t)pl);
	if (shown && st && raw && !strcmp(json_object_get_string(st), "plain") &&
	    (n = kept_unhex(json_object_get_string(raw), name, 255)) > 0)
		return join(shown, name, (size_t)n);
	return sp ? strdup(json_object_get_string(sp)) : NULL;
}

/* d's directory file read; in_path: its path in the image as its
 * parent's saved names give it, or NULL (then the file's "path"). */
static void dir_open(struct uk *u, struct udir *d, const char *in_path)
{
	json_object *dpath, *lk;

	d->dfile = read_json(d->src, KEPT_DIR_FILE);
	d->later = json_object_get(field(d->dfile, "decrypt_later", json_type_object));
	dpath = field(d->dfile, "path", json_type_string);
	d->ents = field(d->dfile, "entries", json_type_array);
	lk = field(d->dfile, "names_locked", json_type_boolean);
	d->by_name = json_object_new_object();
	d->kept_out = json_object_new_array();
	d->next = json_object_new_object();
	d->shown = in_path ? strdup(in_path) : dpath ? strdup(json_object_get_string(dpath)) : NULL;
	d->label = label_of(u, d->shown, d->rel);
	d->names_locked = lk && json_object_get_boolean(lk);
	if (d->dfile && !d->ents) {
		report_error_at(u->r, d->label, 0, "%s without entries: copied as it is", KEPT_DIR_FILE);
		u->skipped++;
	}
}

/* Locked names decrypted (each entry's "plain_hex"), and the cipher kept,
 * only when most of them verify: a key that opens the policy but not
 * these names leaves them kept, not turned into garbage. */
static void open_names(struct uk *u, struct udir *d)
{
	struct e4_evidence ev;

	if (!d->names_locked || !d->ents)
		return;
	memset(&ev, 0, sizeof(ev));
	d->nc = cipher_of(u, d->later, E4_KEY_NAMES, d->label);
	if (d->nc) {
		decrypt_names(d->nc, d->ents, &ev, 1, SIZE_MAX);
		if (ev.names && !e4_evidence_trusted(&ev)) {
			report_error_at(u->r, d->label, 0, "its names do not decrypt with the key: kept");
			e4_cipher_free(d->nc);
			d->nc = NULL;
		}
	}
	d->keep_names = !d->nc;
}

/* by_name: the stored entries by their name in the export; their
 * sidecars' names map to null (not entries of their own). */
static void index_names(struct uk *u, struct udir *d)
{
	for (size_t i = 0; d->ents && i < json_object_array_length(d->ents); i++) {
		json_object *e = json_object_array_get_idx(d->ents, i);
		json_object *nh = field(e, "name_hex", json_type_string), *sh;

		if (!nh) {
			report_error_at(u->r, d->label, 0, "%s: entry %zu has no name_hex: ignored",
					KEPT_DIR_FILE, i);
			u->skipped++;
			continue;
		}
		json_object_object_add(d->by_name, json_object_get_string(nh), json_object_get(e));
		if ((sh = field(e, "sidecar_hex", json_type_string)))
			json_object_object_add(d->by_name, json_object_get_string(sh), json_object_new_null());
	}
}

/* d's names in the export, sorted (output names and messages the same
 * whatever order readdir gives), less the export's own files; -1 when
 * it cannot be read. */
static int dir_list(struct uk *u, struct udir *d)
{
	size_t cap = 0;
	char **v;
	DIR *dp;
	struct dirent *de;
	int fd;

	/* OUT's own files take these names */
	nameset_add(&d->names, KEPT_DIR_FILE);
	if (d->top)
		nameset_add(&d->names, KEPT_EXPORT_FILE);
	if ((fd = dup(d->src)) < 0 || !(dp = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		report_error_at(u->r, d->label, 0, "cannot read: %s", strerror(errno));
		u->skipped++;
		return -1;
	}
	rewinddir(dp); /* the offset is shared with src */
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, KEPT_DIR_FILE) ||
		    (d->top && !strcmp(de->d_name, KEPT_EXPORT_FILE)))
			continue;
		if (d->nlist == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(v = realloc(d->list, cap * sizeof(*v))))
				break;
			d->list = v;
		}
		if (!(d->list[d->nlist] = strdup(de->d_name)))
			break;
		d->nlist++;
	}
	closedir(dp);
	if (d->nlist)
		qsort(d->list, d->nlist, sizeof(*d->list), cmp_str);
	return 0;
}

/* e's name in OUT: its name decrypted into plain (its length returned)
 * and made unique as extract makes it, else its name in the export (0);
 * -1, reported, when that name is taken. */
static int entry_name(struct uk *u, struct udir *d, struct uentry *e, uint8_t plain[256])
{
	json_object *ph = field(e->ent, "plain_hex", json_type_string);
	int pl;

	if (e->ent && d->names_locked && d->nc && ph &&
	    (pl = (int)kept_unhex(json_object_get_string(ph), plain, 255)) > 0) {
		out_name(&d->names, d->next, (const char *)plain, (size_t)pl,
			 (unsigned long)intfield(e->ent, "inode", 0), e->dname);
		return pl;
	}
	if (e->ent && d->names_locked && d->nc) {
		report_error_at(u->r, d->label, 0, "an entry's name does not decrypt: kept as %s", e->sname);
		u->skipped++;
	}
	snprintf(e->dname, sizeof(e->dname), "%s", e->sname);
	if (nameset_add(&d->names, e->dname) != 1) {
		/* an entry decrypted before it took the name: never replaced */
		report_error_at(u->r, d->label, 0, "%s: its name is taken in the output: not made",
				e->sname);
		u->skipped++;
		return -1;
	}
	return 0;
}

/* The sidecar an entry names (sh: its name in hex), or NULL.  Only a
 * name in src, never a path. */
static json_object *read_sidecar(int src, json_object *sh)
{
	char sc[OUTDIR_NAME_MAX + 1];
	long sl = kept_unhex(json_object_get_string(sh), (uint8_t *)sc, OUTDIR_NAME_MAX - 1);

	sc[sl > 0 ? sl : 0] = 0;
	if (sl > 0 && !memchr(sc, '/', (size_t)sl) && !memchr(sc, 0, (size_t)sl) &&
	    strcmp(sc, ".") && strcmp(sc, ".."))
		return read_json(src, sc);
	return NULL;
}

/* What e is before it is made: its stored entry, type, name in OUT,
 * sidecar, path in the image and label.  Nonzero: not made (a sidecar,
 * a name too long, gone from the export, or its sidecar unreadable). */
static int entry_prepare(struct uk *u, struct udir *d, struct uentry *e)
{
	char hexname[2 * OUTDIR_NAME_MAX + 1];
	uint8_t plain[256];
	json_object *sh;
	int pl;

	if (strlen(e->sname) >= OUTDIR_NAME_MAX)
		return -1;
	for (size_t k = 0; e->sname[k]; k++)
		snprintf(hexname + 2 * k, 3, "%02x", (uint8_t)e->sname[k]);
	hexname[2 * strlen(e->sname)] = 0;
	if (json_object_object_get_ex(d->by_name, hexname, &e->ent) && !e->ent)
		return -1; /* a sidecar */
	if (fstatat(d->src, e->sname, &e->st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if ((pl = entry_name(u, d, e, plain)) < 0)
		return -1;
	if (asprintf(&e->orel, "%s%s%s", d->rel, *d->rel ? "/" : "", e->dname) < 0)
		e->orel = NULL;
	sh = field(e->ent, "sidecar_hex", json_type_string);
	if (sh)
		e->side = read_sidecar(d->src, sh);
	e->path = entry_path(d->shown, plain, pl, e->ent, e->side);
	e->lab = label_of(u, e->path, e->orel);
	e4_wipe(plain, sizeof(plain));
	if (sh && !e->side) {
		report_error_at(u->r, e->lab, 0, "its sidecar cannot be read");
		u->skipped++;
		return -1;
	}
	return 0;
}

/* A subdirectory queued, to be entered when d is done (its path, output
 * path and label move to the queue); -1 when out of memory. */
static int queue_sub(struct uk *u, struct udir *d, struct uentry *e)
{
	struct sub *s;

	if (d->nsubs == d->capsubs) {
		size_t c2 = d->capsubs ? 2 * d->capsubs : 16;
		struct sub *v = realloc(d->subs, c2 * sizeof(*v));

		if (v) {
			d->subs = v;
			d->capsubs = c2;
		}
	}
	if (d->nsubs == d->capsubs || !e->orel || !e->lab ||
	    !(d->subs[d->nsubs].sname = strdup(e->sname))) {
		report_error_at(u->r, e->lab ? e->lab : d->label, 0, "out of memory: not entered");
		u->skipped++;
		return -1;
	}
	s = &d->subs[d->nsubs];
	if (!(s->dname = strdup(e->dname))) {
		free(s->sname);
		report_error_at(u->r, e->lab, 0, "out of memory: not entered");
		u->skipped++;
		return -1;
	}
	s->path = e->path;
	s->orel = e->orel;
	s->label = e->lab;
	d->nsubs++;
	e->path = e->orel = e->lab = NULL;
	return 0;
}

/* A locked symlink: made with its target decrypted, else kept. */
static void unlock_symlink(struct uk *u, struct udir *d, struct uentry *e)
{
	json_object *sl = field(e->side, "decrypt_later", json_type_object);
	json_object *blobhex = field(e->side, "symlink_stored_hex", json_type_string);
	struct e4_cipher *c = cipher_of(u, sl, E4_KEY_NAMES, e->lab);
	uint8_t *blob = malloc(4096), *out = malloc(4097);
	long bl = blobhex && blob ? kept_unhex(json_object_get_string(blobhex), blob, 4096) : -1;
	size_t tl = 0;

	if (!c || !out) {
		keep_entry(u, d, e, 1);
	} else if (bl <= 0 || e4_symlink_decrypt(c, blob, (size_t)bl, out, &tl) != E4_OK ||
		   !tl || memchr(out, 0, tl)) {
		report_error_at(u->r, e->lab, 0, "symlink target does not decrypt: kept");
		keep_entry(u, d, e, 1);
		u->skipped++;
	} else {
		struct timespec ts[2];

		out[tl] = 0;
		later_times(sl, ts);
		if (copy_symlink(u, d->src, e->sname, d->dst, e->dname, (char *)out, ts)) {
			report_error_at(u->r, e->lab, 0, "cannot create symlink: %s", strerror(errno));
			u->skipped++;
		} else {
			u->symlinks++;
			/* its size is the target's length, as lstat
			 * with the key gives it */
			emit(u, e->path, e->orel, sl, "complete", NULL, (char *)out, tl);
		}
	}
	if (out)
		e4_wipe(out, 4097);
	free(blob);
	free(out);
	e4_cipher_free(c);
}

/* The manifest row of a file decrypted to orel (later: its inode). */
static void manifest_add(struct uk *u, json_object *later, const char *orel,
			 const char *path, const char *hashes)
{
	struct e4_inode in;
	struct manifest_row *row;

	kept_later_inode(later, &in);
	row = manifest_row_start(orel, &in, "-");
	/* its path in the image, as extract's rows */
	if (row && path && manifest_row_path(row, path)) {
		manifest_row_free(row);
		row = NULL;
	}
	manifest_write(u->man, row, hashes, NULL);
}

/* A locked regular file: decrypted, else kept (not when decrypt_file
 * failed writing OUT, -2). */
static void unlock_file(struct uk *u, struct udir *d, struct uentry *e)
{
	json_object *sl = field(e->side, "decrypt_later", json_type_object);
	struct e4_cipher *c = cipher_of(u, sl, E4_KEY_CONTENTS, e->lab);
	char hashes[MANIFEST_HASHES] = "";
	int rc = c ? decrypt_file(u, d->src, e->sname, e->side, d->dst, e->dname, c, e->lab) : -1;

	if (rc == 0) {
		u->files++;
		if (u->man || u->o->json)
			hash_of(d->dst, e->dname, hashes);
		if (u->man && hashes[0])
			manifest_add(u, sl, e->orel, e->path, hashes);
		emit(u, e->path, e->orel, sl, "complete", hashes, NULL, 0);
	} else {
		if (c)
			u->skipped++;
		if (rc != -2)
			keep_entry(u, d, e, 0);
	}
	e4_cipher_free(c);
}

/* e made in OUT: a subdirectory queued, a locked symlink or file
 * decrypted (or kept), anything else copied as it is.  -1: a
 * subdirectory not queued. */
static int entry_make(struct uk *u, struct udir *d, struct uentry *e)
{
	mode_t m = e->st.st_mode;

	if (S_ISDIR(m))
		return queue_sub(u, d, e);
	if (S_ISLNK(m) && e->side) {
		unlock_symlink(u, d, e);
	} else if (S_ISLNK(m)) {
		if (copy_symlink(u, d->src, e->sname, d->dst, e->dname, NULL, NULL)) {
			report_error_at(u->r, e->lab, 0, "cannot copy symlink: %s", strerror(errno));
			u->skipped++;
		} else {
			u->copied++;
		}
	} else if (S_ISREG(m) && e->side) {
		unlock_file(u, d, e);
	} else if (S_ISREG(m)) {
		if (copy_file(u, d->src, e->sname, d->dst, e->dname, e->lab))
			u->skipped++;
		else
			u->copied++;
	} else {
		report_error_at(u->r, e->lab, 0, "not a file, directory or symlink: not copied");
		u->skipped++;
	}
	return 0;
}

/* Where d's names stay locked, an entry that keep_entry did not list
 * (listed: kept_out's length before it) is listed again under its
 * stored name (made here, so without a sidecar). */
static void list_stored(struct udir *d, struct uentry *e, size_t listed)
{
	json_object *o;

	if (!d->keep_names || !e->ent || json_object_array_length(d->kept_out) != listed)
		return;
	o = json_tokener_parse(json_object_to_json_string(e->ent));
	json_object_object_del(o, "sidecar");
	json_object_object_del(o, "sidecar_hex");
	json_object_array_add(d->kept_out, o);
}

/* One entry of d (sname in the export), made in OUT and released. */
static void do_entry(struct uk *u, struct udir *d, const char *sname)
{
	struct uentry e = { .sname = sname };
	size_t listed = json_object_array_length(d->kept_out);

	if (!entry_prepare(u, d, &e) && !entry_make(u, d, &e))
		list_stored(d, &e, listed);
	json_object_put(e.side);
	free(e.path);
	free(e.orel);
	free(e.lab);
}

/* What stays kept in d, written as its directory file: OUT is an
 * export again. */
static void write_kept(struct uk *u, struct udir *d)
{
	json_object *o;

	if (!d->keep_names && !json_object_array_length(d->kept_out))
		return;
	o = json_object_get(d->dfile);
	if (!o) {
		o = json_record("kept_directory");
		if (d->shown)
			json_object_object_add(o, "path", json_object_new_string(d->shown));
	}
	json_object_object_add(o, "names_locked", json_object_new_boolean(d->keep_names));
	json_object_object_add(o, "entries", json_object_get(d->kept_out));
	if (kept_write_json(&u->od, d->dst, KEPT_DIR_FILE, o)) {
		report_error_at(u->r, d->label, 0, "cannot write %s: %s", KEPT_DIR_FILE, strerror(errno));
		u->skipped++;
	} else {
		u->dir_files++;
		u->names_kept += d->keep_names != 0;
	}
	json_object_put(o);
}

/* d's entries released, before its subdirectories are entered. */
static void dir_release(struct udir *d)
{
	for (size_t i = 0; i < d->nlist; i++)
		free(d->list[i]);
	free(d->list);
	nameset_free(&d->names);
	e4_cipher_free(d->nc);
	json_object_put(d->by_name);
	json_object_put(d->next);
	json_object_put(d->kept_out);
	json_object_put(d->dfile);
	d->list = NULL;
	d->nlist = 0;
	d->nc = NULL;
	d->by_name = d->next = d->kept_out = d->dfile = d->ents = NULL;
}

static void unlock_dir(struct uk *u, int src, int dst, const char *in_path,
		       const char *rel, unsigned int depth, int top);

/* d's queued subdirectories made in OUT and unlocked, in order. */
static void enter_subs(struct uk *u, struct udir *d)
{
	for (size_t i = 0; i < d->nsubs; i++) {
		struct sub *s = &d->subs[i];
		int s2 = openat(d->src, s->sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int d2 = s2 >= 0 && d->depth < MAX_DEPTH ? outdir_mkdir(&u->od, d->dst, s->dname) : -1;

		if (d->depth >= MAX_DEPTH) {
			report_error_at(u->r, s->label, 0, "directories nested deeper than %d: not entered",
					MAX_DEPTH);
			u->skipped++;
		} else if (d2 < 0) {
			report_error_at(u->r, s->label, 0, "cannot make directory: %s", strerror(errno));
			u->skipped++;
		} else {
			unlock_dir(u, s2, d2, s->path, s->orel, d->depth + 1, 0);
			close(d2);
		}
		if (s2 >= 0)
			close(s2);
		free(s->sname);
		free(s->dname);
		free(s->path);
		free(s->orel);
		free(s->label);
	}
	free(d->subs);
	d->subs = NULL;
	d->nsubs = d->capsubs = 0;
}

/* d's own mode, times and record (not OUT's), once its entries are made;
 * then the rest of d released. */
static void dir_finish(struct uk *u, struct udir *d)
{
	if (!d->top) {
		struct stat st;
		struct timespec ts[2];
		mode_t m;

		if (!fstat(d->src, &st)) {
			ts[0] = st.st_atim;
			ts[1] = st.st_mtim;
			m = st.st_mode & setid_mask(u);
			if (d->later) {
				later_times(d->later, ts);
				m = (mode_t)(intfield(d->later, "i_mode", m) & setid_mask(u));
			}
			fchmod(d->dst, m);
			futimens(d->dst, ts);
		}
		u->dirs++;
		emit(u, d->shown, d->rel, d->later, "complete", NULL, NULL, 0);
	}
	json_object_put(d->later);
	free(d->shown);
	free(d->label);
}

/* Copy (and decrypt) export directory src into dst.  in_path: its path
 * in the image as its parent's saved names give it, or NULL (then its
 * own directory file's "path"); rel: its path in OUT ("" for OUT, top).
 * Its entries are done, and its own records released, before its
 * subdirectories are entered: memory is one directory's entries and the
 * names of the subdirectories on the way down.  Then its mode, times and
 * record (not OUT's). */
static void unlock_dir(struct uk *u, int src, int dst, const char *in_path,
		       const char *rel, unsigned int depth, int top)
{
	struct udir d = { .src = src, .dst = dst, .top = top, .depth = depth, .rel = rel };

	dir_open(u, &d, in_path);
	open_names(u, &d);
	index_names(u, &d);
	if (!dir_list(u, &d)) {
		for (size_t i = 0; i < d.nlist; i++)
			do_entry(u, &d, d.list[i]);
		write_kept(u, &d);
	}
	dir_release(&d);
	enter_subs(u, &d);
	dir_finish(u, &d);
}

/* The keys given: key files, then passphrases with the salt given or the
 * export's.  -1 when one cannot be loaded or none is given. */
static int load_keys(struct uk *u)
{
	const struct options *o = u->o;
	json_object *v;
	uint8_t salt[256];
	long salt_len = -1;
	int rc = -1;

	if (!(u->ks = e4_keystore_new()))
		return -1;
	for (size_t i = 0; i < o->n_key_files; i++)
		if (keyload_file(u->ks, o->key_files[i], u->r))
			goto out;
	if (o->salt_hex)
		salt_len = keyload_salt(o->salt_hex, salt, u->r);
	else if ((v = field(u->header, "encrypt_pw_salt", json_type_string)))
		salt_len = kept_unhex(json_object_get_string(v), salt, sizeof(salt));
	for (size_t i = 0; i < o->n_pass_files; i++)
		if (salt_len <= 0 || keyload_passphrase(u->ks, o->pass_files[i], salt,
							(size_t)salt_len, u->r)) {
			if (salt_len <= 0)
				report_error(u->r, "no passphrase salt in the export: give --salt SALT");
			goto out;
		}
	if (!e4_keystore_count(u->ks)) {
		report_error(u->r, "unlock-kept: give --key-file or --passphrase-file");
		goto out;
	}
	rc = 0;
out:
	e4_wipe(salt, sizeof(salt));
	return rc;
}

static int run(const struct options *o, struct report *r)
{
	struct uk u;
	const char *exp = o->args[0];
	int src = -1, rc = EXIT_FATAL;
	int64_t bs;

	memset(&u, 0, sizeof(u));
	u.o = o, u.r = r;
	if (!o->out_dir) {
		report_error(r, "unlock-kept: needs -o OUT");
		return EXIT_FATAL;
	}
	src = open(exp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src < 0) {
		report_error(r, "%s: cannot open: %s", exp, strerror(errno));
		return EXIT_FATAL;
	}
	u.header = read_json(src, KEPT_EXPORT_FILE);
	bs = intfield(u.header, "block_size", 0);
	if (!u.header || intfield(u.header, "format", 0) != KEPT_FORMAT ||
	    hexfield(u.header, "fs_uuid", u.uuid, sizeof(u.uuid)) != 16 ||
	    bs < 1024 || bs > 65536 || (bs & (bs - 1))) {
		report_error(r, "%s: not an export of extract --keep-locked (no readable %s)",
			     exp, KEPT_EXPORT_FILE);
		goto out;
	}
	u.bs = (unsigned int)bs;
	if (load_keys(&u))
		goto out;
	if (mkdir(o->out_dir, 0755) && errno != EEXIST) {
		report_error(r, "%s: cannot create: %s", o->out_dir, strerror(errno));
		goto out;
	}
	u.od.root_fd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (u.od.root_fd < 0) {
		report_error(r, "%s: cannot open: %s", o->out_dir, strerror(errno));
		goto out;
	}
	u.od.force = o->force;
	if (o->manifest && !(u.man = manifest_open(o->manifest, NULL, exp, NULL, o->argc, o->argv, r)))
		goto out;
	umask(0);
	/* v1 keys are tried on the export's names first (two reads of each
	 * directory file; no directory's names kept beyond its own turn) */
	scan(&u, src, 0);
	{
		json_object *p = field(u.header, "path", json_type_string);

		unlock_dir(&u, src, u.od.root_fd, p ? json_object_get_string(p) : "/", "", 0, 1);
	}
	if ((u.kept || u.dir_files) &&
	    kept_write_json(&u.od, u.od.root_fd, KEPT_EXPORT_FILE, u.header)) {
		report_error(r, "%s/%s: cannot write: %s", o->out_dir, KEPT_EXPORT_FILE, strerror(errno));
		u.skipped++;
	}
	if (manifest_close(u.man, r))
		u.skipped++;
	u.man = NULL;
	rc = u.kept || u.names_kept || u.skipped || r->errors ? EXIT_SKIPPED : EXIT_DONE;
	{
		const struct tally t[] = {
			{ "directories", "directories", u.dirs, 0 },
			{ "files", "files", u.files, 0 },
			{ "symlinks", "symlinks made", u.symlinks, 1 },
			{ "copied", "copied as they were", u.copied, 1 },
			{ "locked_kept", "kept locked", u.kept, 0 },
			{ "skipped", "skipped", u.skipped, 0 },
		};

		json_tally("unlock-kept", r, rc, o->json, t, sizeof(t) / sizeof(t[0]), NULL);
	}
out:
	manifest_close(u.man, r);
	if (u.od.root_fd > 0)
		close(u.od.root_fd);
	close(src);
	for (size_t i = 0; i < u.slots; i++)
		pol_free(&u.pols[i]);
	free(u.pols);
	e4_keystore_free(u.ks);
	json_object_put(u.header);
	return rc;
}

int cmd_unlock_kept(const struct options *o, struct report *r)
{
	int rc = run(o, r);

	return json_finish(rc == EXIT_FATAL && o->json, "unlock-kept", r, rc);
}

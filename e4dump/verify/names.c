/* e4dump verify: the names of one directory.  Stored lengths (16..255,
 * the length rule of the image's format), decryption with the key ('/',
 * NUL, zero padding), duplicates, and the entries' encryption and
 * policies. */
#include <stdlib.h>
#include <string.h>
#include "bigmem.h"
#include "escape.h"
#include "verify.h"

/* The bytes a name is compared by for duplicates: what it decrypts to,
 * else its stored bytes; sorted by a hash of them first, so that most
 * comparisons are of one integer (colliding hashes only cost the full
 * comparison, never correctness). */
struct dname {
	uint64_t h;
	const uint8_t *p;
	size_t len;
	int dec;
	uint32_t ino;
	size_t index;
};

static uint64_t fnv1a(int dec, const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)dec;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int same_dname(const struct dname *x, const struct dname *y)
{
	return x->h == y->h && x->dec == y->dec && x->len == y->len &&
	       !memcmp(x->p, y->p, x->len);
}

static int cmp_dname(const void *a, const void *b)
{
	const struct dname *x = a, *y = b;
	int c;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if (x->dec != y->dec)
		return x->dec - y->dec;
	c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int decrypted(const struct e4_entry *e)
{
	return e->plain && (e->state == E4_NAME_DECRYPTED ||
			    e->problem == E4_NAME_UNTRUSTED);
}

int verify_entry_ref(struct verify *v, const struct e4_dir *d, size_t i,
		     struct pnode *dir, struct vref *at)
{
	struct e4_entry e;
	char *name;

	e4_dir_get(d, i, &e);
	name = malloc(E4_ESCAPE_SIZE(e.name_len));
	if (!name) {
		v->nomem = 1;
		return -1;
	}
	e4_escape(e.name, e.name_len, name, E4_ESCAPE_SLASH);
	at->dir = dir;
	at->name = name;
	return 0;
}

void verify_duplicates(struct verify *v, const struct e4_dir *d,
		       struct pnode *dir)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	size_t n = e4_dir_count(d);
	struct dname *s = e4_big_realloc(NULL, 0, n * sizeof(*s));

	if (!s) {
		v->nomem = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct e4_entry e;

		e4_dir_get(d, i, &e);
		s[i].dec = decrypted(&e);
		s[i].p = s[i].dec ? e.plain : e.raw;
		s[i].len = s[i].dec ? e.plain_len : e.raw_len;
		s[i].h = fnv1a(s[i].dec, s[i].p, s[i].len);
		s[i].ino = e.ino;
		s[i].index = i;
	}
	qsort(s, n, sizeof(*s), cmp_dname);
	for (size_t i = 0; i < n && !v->nomem; i++) {
		int before = i > 0 && same_dname(&s[i - 1], &s[i]);
		int after = i + 1 < n && same_dname(&s[i], &s[i + 1]);
		const struct dname *other = before ? &s[i - 1] : after ? &s[i + 1] : NULL;
		struct vref at;

		if (!other || verify_entry_ref(v, d, s[i].index, dir, &at))
			continue;
		vfind(v, CHECK_NAME_DUPLICATE, s[i].ino, &at,
		      "%s the same name as the entry for inode %u in this directory",
		      !f->encrypted ? "has" : s[i].dec ? "decrypts to" :
		      "has the same ciphertext, so", other->ino);
		free((char *)at.name);
	}
	e4_big_free(s, n * sizeof(*s));
}

static void check_padding(struct verify *v, const struct e4_entry *e,
			  const struct vref *path, unsigned int pad, int dec)
{
	size_t stored = e->raw_len;
	int is2015 = v->format == E4_FORMAT_2015;

	if (dec) {
		size_t want = e4_fname_encrypted_size(v->format, pad, e->plain_len,
						      E4_NAME_MAX);

		if (want && want != stored)
			vfind(v, CHECK_NAME_PADDING, e->ino, path,
			      "stored name length %zu, but a %zu-byte name is stored as %zu bytes (%s rule, padding %u)",
			      stored, (size_t)e->plain_len, want,
			      is2015 ? "2015" : "Linux 6.1", pad);
	} else if (!e4_fname_stored_len_possible(v->format, pad, stored,
						 E4_NAME_MAX)) {
		vfind(v, CHECK_NAME_PADDING, e->ino, path,
		      "stored name length %zu is neither 255 nor a multiple of the padding %u",
		      stored, pad);
	}
}

void verify_encrypted_entry(struct verify *v, const struct e4_entry *e,
			    const struct vref *path, const struct e4_context *dctx,
			    int dctx_ok, int have_key,
			    const struct child_facts *child)
{
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	int dec = decrypted(e);

	if (!ext2fs_has_feature_filetype(sb) && e->name_len_field > E4_NAME_MAX) {
		vfind(v, CHECK_NAME_TOO_LONG, e->ino, path,
		      "stored name length %u is longer than 255", e->name_len_field);
	} else if (e->raw_len < E4_FNAME_MIN_LEN) {
		vfind(v, CHECK_NAME_TOO_SHORT, e->ino, path,
		      "stored name length %zu is shorter than one cipher block (16)",
		      e->raw_len);
	} else {
		if (have_key && e->problem == E4_NAME_SLASH)
			vfind(v, CHECK_NAME_SLASH, e->ino, path,
			      "name decrypts to a name containing '/'");
		else if (have_key && e->problem == E4_NAME_INVALID)
			vfind(v, CHECK_NAME_DECRYPT, e->ino, path, "%s",
			      e->plain_len == 0 ? "name decrypts to an empty name" :
			      "decrypted name has non-zero bytes after its terminating NUL (an embedded NUL or a corrupt name)");
		if (dctx_ok)
			check_padding(v, e, path, e4_context_name_padding(dctx), dec);
	}
	if (!child)
		return;
	if (!child->encrypted) {
		if (E4_ISREG(child->mode) || E4_ISDIR(child->mode) ||
		    E4_ISLNK(child->mode))
			vfind(v, CHECK_DIR_UNENCRYPTED_ENTRY, e->ino, path,
			      "unencrypted %s in an encrypted directory",
			      E4_ISDIR(child->mode) ? "directory" :
			      E4_ISLNK(child->mode) ? "symlink" : "file");
		return;
	}
	if (dctx_ok && child->ctx_status == E4_OK &&
	    !e4_context_same_policy(&child->ctx, dctx)) {
		const struct e4_context *cctx = &child->ctx;
		char a[33], b[33];

		e4_context_key_id_hex(dctx, a);
		e4_context_key_id_hex(cctx, b);
		vfind(v, CHECK_POLICY_DIFFERS, e->ino, path,
		      "policy v%u %u/%u flags 0x%02x key %s differs from its directory's v%u %u/%u flags 0x%02x key %s",
		      cctx->version, cctx->contents_mode, cctx->filenames_mode,
		      cctx->flags, b, dctx->version, dctx->contents_mode,
		      dctx->filenames_mode, dctx->flags, a);
	}
}

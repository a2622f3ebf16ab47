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
 * else its stored bytes.  Duplicates are found with a hash table of
 * entry indices (linear in the directory: a sort of a 1,000,000-entry
 * directory took 15 times what 100,000 did); a hash of the bytes decides
 * most probes, equal hashes cost a full comparison, never correctness. */
struct dname {
	const uint8_t *p;
	size_t len;
	int dec;
	uint32_t ino;
};

static uint32_t fnv1a(int dec, const uint8_t *p, size_t len)
{
	uint32_t h = 0x811c9dc5u ^ (uint32_t)dec;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x01000193u;
	return h;
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

static void dname_of(const struct e4_dir *d, size_t i, struct dname *out)
{
	struct e4_entry e;

	e4_dir_get(d, i, &e);
	out->dec = decrypted(&e);
	out->p = out->dec ? e.plain : e.raw;
	out->len = out->dec ? e.plain_len : e.raw_len;
	out->ino = e.ino;
}

static int same_dname(const struct dname *x, const struct dname *y)
{
	return x->dec == y->dec && x->len == y->len && !memcmp(x->p, y->p, x->len);
}

/* One slot of the table: a name's hash and the last entry seen with it. */
struct dslot {
	uint32_t h;
	uint32_t last; /* entry index + 1; 0: empty */
};

static void report_duplicate(struct verify *v, const struct e4_dir *d,
			     struct pnode *dir, size_t i, const struct dname *x,
			     uint32_t other_ino)
{
	struct vref at;

	if (verify_entry_ref(v, d, i, dir, &at))
		return;
	vfind(v, CHECK_NAME_DUPLICATE, x->ino, &at,
	      "%s the same name as the entry for inode %u in this directory",
	      !e4_dir_facts(d)->encrypted ? "has" : x->dec ? "decrypts to" :
	      "has the same ciphertext, so", other_ino);
	free((char *)at.name);
}

/* Every entry whose name another entry of the directory has: the first of
 * a group is reported against the second, each later one against the one
 * before it. */
void verify_duplicates(struct verify *v, const struct e4_dir *d,
		       struct pnode *dir)
{
	size_t n = e4_dir_count(d), slots = 16;
	struct dslot *t;
	uint8_t *reported;

	if (n < 2)
		return;
	while (slots < 2 * n)
		slots *= 2;
	t = e4_big_realloc(NULL, 0, slots * sizeof(*t));
	reported = calloc(n / 8 + 1, 1);
	if (!t || !reported) {
		e4_big_free(t, slots * sizeof(*t));
		free(reported);
		v->nomem = 1;
		return;
	}
	memset(t, 0, slots * sizeof(*t));
	for (size_t i = 0; i < n && !v->nomem; i++) {
		struct dname x, y;
		uint32_t h;
		size_t k;

		dname_of(d, i, &x);
		h = fnv1a(x.dec, x.p, x.len);
		for (k = h & (slots - 1); t[k].last; k = (k + 1) & (slots - 1)) {
			size_t j = t[k].last - 1;

			if (t[k].h != h)
				continue;
			dname_of(d, j, &y);
			if (!same_dname(&x, &y))
				continue;
			if (!(reported[j / 8] & (1u << (j % 8)))) {
				/* the first of its group, and so unreported */
				report_duplicate(v, d, dir, j, &y, x.ino);
				reported[j / 8] |= (uint8_t)(1u << (j % 8));
			}
			report_duplicate(v, d, dir, i, &x, y.ino);
			reported[i / 8] |= (uint8_t)(1u << (i % 8));
			break;
		}
		t[k].h = h;
		t[k].last = (uint32_t)(i + 1);
	}
	e4_big_free(t, slots * sizeof(*t));
	free(reported);
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

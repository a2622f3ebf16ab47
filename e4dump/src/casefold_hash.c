/* Casefolded encrypted directories: the stored SipHash dirhash pair. */
#include <string.h>
#include "casefold_hash.h"
#include "kdf.h"
#include "siphash_dirhash.h"

/* libext2fs declares struct ext2fs_nls_table without its members, and
 * offers no public call that returns the folded bytes.  Its definition in
 * e2fsprogs lib/ext2fs/ext2fsP.h (1.46 and 1.47: version, then the
 * operations, casefold first) is completed here; casefold_ok() checks it at
 * run time against a known fold and the public ext2fs_casefold_cmp() before
 * the first use, and nothing is folded if that fails. */
struct ext2fs_nls_ops_mirror {
	int (*casefold)(const struct ext2fs_nls_table *charset,
			const unsigned char *str, size_t len,
			unsigned char *dest, size_t dlen);
};

struct ext2fs_nls_table {
	int version;
	const struct ext2fs_nls_ops_mirror *ops;
};

/* kernel: EXT4_NAME_LEN buffer of ext4_fname_setup_ci_filename(), PATH_MAX
 * buffer of ext4fs_dirhash() */
#define CF_FIRST_BUF 255
#define CF_SECOND_BUF 4096

const struct ext2fs_nls_table *casefold_table(ext2_filsys fs)
{
	if (!fs || !ext2fs_has_feature_casefold(fs->super))
		return NULL;
	return fs->encoding;
}

/* The raw fold: >= 0 length, < 0 failure (libext2fs returns -EINVAL or
 * -ENAMETOOLONG for both an invalid sequence and a fold too long, so the
 * two are not told apart; the kernel treats them alike too). */
static int fold_raw(const struct ext2fs_nls_table *enc, const uint8_t *name,
		    size_t len, uint8_t *out, size_t outsz)
{
	int r;

	if (!enc->ops || !enc->ops->casefold || outsz == 0)
		return -1;
	r = enc->ops->casefold(enc, name, len, out, outsz);
	if (r < 0 || (size_t)r >= outsz)
		return -1;
	out[r] = '\0';
	return r;
}

static int casefold_ok(const struct ext2fs_nls_table *enc)
{
	static const struct ext2fs_nls_table *checked;
	static int result;
	/* "Straße É\u212a": ß -> "ss", É -> e U+0301, KELVIN SIGN -> k */
	static const uint8_t in[] = "Stra\xc3\x9f" "e \xc3\x89\xe2\x84\xaa";
	static const uint8_t want[] = "strasse e\xcc\x81k";
	uint8_t out[64];
	int r;

	if (checked == enc)
		return result;
	r = fold_raw(enc, in, sizeof(in) - 1, out, sizeof(out));
	result = r == (int)sizeof(want) - 1 && !memcmp(out, want, sizeof(want) - 1) &&
		 ext2fs_casefold_cmp(enc, in, sizeof(in) - 1, want, sizeof(want) - 1) == 0 &&
		 ext2fs_casefold_cmp(enc, in, sizeof(in) - 1, (const uint8_t *)"x", 1) != 0;
	checked = enc;
	return result;
}

int casefold_name(const struct ext2fs_nls_table *enc, const uint8_t *name,
		  size_t len, uint8_t *out, size_t outsz)
{
	if (!enc || !casefold_ok(enc))
		return -2;
	return fold_raw(enc, name, len, out, outsz);
}

int casefold_dirhash_key(const uint8_t *master, size_t master_len,
			 const uint8_t nonce[16], uint8_t key[16])
{
	return e4_hkdf_sha512(key, 16, master, master_len, E4_HKDF_DIRHASH_KEY,
			      nonce, 16) == E4_OK ? 0 : -1;
}

int casefold_dirhash(const struct ext2fs_nls_table *enc, const uint8_t key[16],
		     const uint8_t *name, size_t len, uint32_t *hash,
		     uint32_t *minor)
{
	uint8_t first[CF_FIRST_BUF + 1], second[CF_SECOND_BUF + 1];
	const uint8_t *in = name, *h = name;
	size_t inlen = len, hlen = len;
	int r;

	if (!name || len == 0 || len > 255)
		return -1;
	if (enc) {
		if (!casefold_ok(enc))
			return -2;
		/* ext4_fname_setup_ci_filename: utf8_casefold(..., EXT4_NAME_LEN) */
		r = fold_raw(enc, name, len, first, CF_FIRST_BUF);
		if (r > 0) {
			in = first;
			inlen = (size_t)r;
		}
		/* ext4fs_dirhash: utf8_casefold(..., PATH_MAX), else the bytes */
		h = in;
		hlen = inlen;
		r = fold_raw(enc, in, inlen, second, CF_SECOND_BUF);
		if (r >= 0) {
			h = second;
			hlen = (size_t)r;
		}
	}
	r = e4_siphash_dirhash(key, h, hlen, hash, minor) == E4_OK ? 0 : -1;
	e4_wipe(first, sizeof(first));
	e4_wipe(second, sizeof(second));
	return r;
}

int casefold_hash_in_dirent(const struct ext2_inode *inode)
{
	return (inode->i_flags & EXT4_ENCRYPT_FL) &&
	       (inode->i_flags & EXT4_CASEFOLD_FL);
}

int casefold_stored_hash(const struct ext2_dir_entry *de, int blocksize,
			 uint32_t *hash, uint32_t *minor)
{
	unsigned int len = ext2fs_dirent_name_len(de);
	unsigned int rec_len = de->rec_len;
	unsigned int off = (len + 3) & ~3u;
	const uint8_t *p = (const uint8_t *)de->name + off;

	/* ext2fs_get_rec_len() without a filesystem handle */
	if (blocksize >= 65536) {
		if (rec_len == 65535 || rec_len == 0)
			rec_len = (unsigned int)blocksize;
		else
			rec_len = (rec_len & 65532) | ((rec_len & 3) << 16);
	}
	if (len == 0 || 8 + off + 8 > rec_len)
		return -1;
	*hash = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
	*minor = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
		 (uint32_t)p[7] << 24;
	return 0;
}

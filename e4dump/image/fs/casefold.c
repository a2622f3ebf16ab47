/* Casefolded encrypted directories: the stored SipHash dirhash pair. */
#include <string.h>
#include "casefold.h"
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

int e4_casefold_self_check(const struct ext2fs_nls_table *enc)
{
	/* "Straße É\u212a": ß -> "ss", É -> e U+0301, KELVIN SIGN -> k */
	static const uint8_t in[] = "Stra\xc3\x9f" "e \xc3\x89\xe2\x84\xaa";
	static const uint8_t want[] = "strasse e\xcc\x81k";
	uint8_t out[64];
	int r;

	if (!enc)
		return 0;
	r = fold_raw(enc, in, sizeof(in) - 1, out, sizeof(out));
	return r == (int)sizeof(want) - 1 && !memcmp(out, want, sizeof(want) - 1) &&
	       ext2fs_casefold_cmp(enc, in, sizeof(in) - 1, want, sizeof(want) - 1) == 0 &&
	       ext2fs_casefold_cmp(enc, in, sizeof(in) - 1, (const uint8_t *)"x", 1) != 0;
}
int e4_casefold_name(const struct ext2fs_nls_table *enc, const uint8_t *name,
		     size_t len, uint8_t *out, size_t outsz)
{
	return fold_raw(enc, name, len, out, outsz);
}

int e4_casefold_dirhash(const struct ext2fs_nls_table *enc,
			const uint8_t key[16], const uint8_t *name, size_t len,
			uint32_t *hash, uint32_t *minor)
{
	uint8_t first[CF_FIRST_BUF + 1], second[CF_SECOND_BUF + 1];
	const uint8_t *in = name, *h = name;
	size_t inlen = len, hlen = len;
	int r;

	if (!name || len == 0 || len > 255)
		return -1;
	if (enc) {
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

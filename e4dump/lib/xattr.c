#include <string.h>
#include "xattr.h"

#define ENTRY_SIZE 16   /* struct ext4_xattr_entry without its name */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* ext4_xattr_check_entries(): entries from first to the 4-byte
 * terminator, each inside [first, end); values inside [value_start, end)
 * and after the terminator.  Then look index/name up. */
static enum e4_status find(const uint8_t *first, const uint8_t *end,
			   const uint8_t *value_start, uint8_t index,
			   const char *name, struct e4_xattr *out,
			   const char **why)
{
	size_t want_len = strlen(name);
	const uint8_t *e = first, *term;
	int found = 0;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	/* the names */
	while ((size_t)(end - e) >= 4 && le32(e) != 0) {
		size_t len;

		if ((size_t)(end - e) < ENTRY_SIZE) {
			*why = "xattr entry runs past the end";
			return E4_CORRUPT;
		}
		len = e[0];
		if (pad4(ENTRY_SIZE + len) >= (size_t)(end - e)) {
			*why = "xattr entry runs past the end";
			return E4_CORRUPT;
		}
		if (memchr(e + ENTRY_SIZE, 0, len)) {
			*why = "xattr name with a NUL byte";
			return E4_CORRUPT;
		}
		e += pad4(ENTRY_SIZE + len);
	}
	if ((size_t)(end - e) < 4) {
		*why = "xattr entries without a terminator";
		return E4_CORRUPT;
	}
	term = e;
	/* the values */
	for (e = first; e < term; e += pad4(ENTRY_SIZE + e[0])) {
		uint32_t offs = (uint32_t)e[2] | (uint32_t)e[3] << 8;
		uint32_t inum = le32(e + 4), size = le32(e + 8);
		const uint8_t *value = NULL;

		if (size > (1u << 24)) {
			*why = "xattr value larger than 16 MiB";
			return E4_CORRUPT;
		}
		if (size && !inum) {
			if (offs > (size_t)(end - value_start)) {
				*why = "xattr value offset past the end";
				return E4_CORRUPT;
			}
			value = value_start + offs;
			if (value < term + 4 || pad4(size) > (size_t)(end - value)) {
				*why = "xattr value outside its area";
				return E4_CORRUPT;
			}
		}
		if (!found && e[1] == index && e[0] == want_len &&
		    !memcmp(e + ENTRY_SIZE, name, want_len)) {
			found = 1;
			out->index = e[1];
			out->name = e + ENTRY_SIZE;
			out->name_len = e[0];
			out->value = inum ? NULL : size ? value : e;
			out->value_len = size;
			out->value_inum = inum;
		}
	}
	return found ? E4_OK : E4_NOT_FOUND;
}

enum e4_status e4_xattr_find_ibody(const uint8_t *area, size_t size,
				   uint8_t index, const char *name,
				   struct e4_xattr *out, const char **why)
{
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (size < 8 || le32(area) != E4_XATTR_MAGIC)
		return E4_NOT_FOUND;
	/* IFIRST: entries right after the magic; value offsets from there */
	return find(area + 4, area + size, area + 4, index, name, out, why);
}

enum e4_status e4_xattr_find_block(const uint8_t *blk, size_t size,
				   uint8_t index, const char *name,
				   struct e4_xattr *out, const char **why)
{
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (size < E4_XATTR_BLOCK_HEADER + 4 || le32(blk) != E4_XATTR_MAGIC) {
		*why = "bad xattr block magic";
		return E4_CORRUPT;
	}
	if (le32(blk + 8) != 1) {
		*why = "xattr block h_blocks is not 1";
		return E4_CORRUPT;
	}
	return find(blk + E4_XATTR_BLOCK_HEADER, blk + size, blk, index, name,
		    out, why);
}

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
 * and after the terminator.  Only when all are valid is each passed to
 * fn (non-zero stops: E4_STOPPED). */
static enum e4_status walk(const uint8_t *first, const uint8_t *end,
			   const uint8_t *value_start, e4_xattr_fn fn,
			   void *arg, const char **why)
{
	const uint8_t *e = first, *term;

	*why = NULL;
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
		const uint8_t *value;

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
	}
	/* every entry checked: pass them on */
	for (e = first; e < term; e += pad4(ENTRY_SIZE + e[0])) {
		uint32_t offs = (uint32_t)e[2] | (uint32_t)e[3] << 8;
		uint32_t inum = le32(e + 4), size = le32(e + 8);
		struct e4_xattr x;

		x.index = e[1];
		x.name = e + ENTRY_SIZE;
		x.name_len = e[0];
		x.value = inum ? NULL : size ? value_start + offs : e;
		x.value_len = size;
		x.value_inum = inum;
		if (fn(arg, &x))
			return E4_STOPPED;
	}
	return E4_OK;
}

struct find_arg {
	uint8_t index;
	const char *name;
	size_t name_len;
	struct e4_xattr *out;
};

static int find_one(void *arg, const struct e4_xattr *x)
{
	struct find_arg *f = arg;

	if (x->index != f->index || x->name_len != f->name_len ||
	    memcmp(x->name, f->name, f->name_len))
		return 0;
	*f->out = *x;
	return 1;
}

/* The first entry (index, name), after every entry was checked. */
static enum e4_status find(const uint8_t *first, const uint8_t *end,
			   const uint8_t *value_start, uint8_t index,
			   const char *name, struct e4_xattr *out,
			   const char **why)
{
	struct find_arg f = { index, name, strlen(name), out };
	enum e4_status st;

	memset(out, 0, sizeof(*out));
	st = walk(first, end, value_start, find_one, &f, why);
	return st == E4_STOPPED ? E4_OK : st == E4_OK ? E4_NOT_FOUND : st;
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

enum e4_status e4_xattr_each_ibody(const uint8_t *area, size_t size,
				   e4_xattr_fn fn, void *arg, const char **why)
{
	*why = NULL;
	if (size < 8 || le32(area) != E4_XATTR_MAGIC)
		return E4_NOT_FOUND;
	return walk(area + 4, area + size, area + 4, fn, arg, why);
}

enum e4_status e4_xattr_each_block(const uint8_t *blk, size_t size,
				   e4_xattr_fn fn, void *arg, const char **why)
{
	*why = NULL;
	if (size < E4_XATTR_BLOCK_HEADER + 4 || le32(blk) != E4_XATTR_MAGIC) {
		*why = "bad xattr block magic";
		return E4_CORRUPT;
	}
	if (le32(blk + 8) != 1) {
		*why = "xattr block h_blocks is not 1";
		return E4_CORRUPT;
	}
	return walk(blk + E4_XATTR_BLOCK_HEADER, blk + size, blk, fn, arg, why);
}

/* fs/ext4/xattr.h's name indexes; the prefixes e2fsprogs gives them
 * (lib/ext2fs/ext_attr.c), and which Linux 6.1 lists
 * (ext4_xattr_handler_map: user, the POSIX ACLs, trusted, security,
 * gnu). */
static const struct {
	uint8_t index;
	const char *prefix;
	int listed;
} prefixes[] = {
	{ 1, "user.", 1 },
	{ 2, "system.posix_acl_access", 1 },
	{ 3, "system.posix_acl_default", 1 },
	{ 4, "trusted.", 1 },
	{ 5, "lustre.", 0 },
	{ 6, "security.", 1 },
	{ 7, "system.", 0 },
	{ 8, "system.richacl", 0 },
	{ 10, "gnu.", 1 },
};

const char *e4_xattr_prefix(uint8_t index, int *listed)
{
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (prefixes[i].index == index) {
			if (listed)
				*listed = prefixes[i].listed;
			return prefixes[i].prefix;
		}
	if (listed)
		*listed = 0;
	return "";
}

#include <stdio.h>
#include <string.h>
#include "xattr.h"
#include "byteorder.h"

#define ENTRY_SIZE 16   /* struct ext4_xattr_entry without its name */

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
	while ((size_t)(end - e) >= 4 && e4_le32(e) != 0) {
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
		uint32_t inum = e4_le32(e + 4), size = e4_le32(e + 8);
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
		uint32_t inum = e4_le32(e + 4), size = e4_le32(e + 8);
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
	if (size < 8 || e4_le32(area) != E4_XATTR_MAGIC)
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
	if (size < E4_XATTR_BLOCK_HEADER + 4 || e4_le32(blk) != E4_XATTR_MAGIC) {
		*why = "bad xattr block magic";
		return E4_CORRUPT;
	}
	if (e4_le32(blk + 8) != 1) {
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
	if (size < 8 || e4_le32(area) != E4_XATTR_MAGIC)
		return E4_NOT_FOUND;
	return walk(area + 4, area + size, area + 4, fn, arg, why);
}

enum e4_status e4_xattr_each_block(const uint8_t *blk, size_t size,
				   e4_xattr_fn fn, void *arg, const char **why)
{
	*why = NULL;
	if (size < E4_XATTR_BLOCK_HEADER + 4 || e4_le32(blk) != E4_XATTR_MAGIC) {
		*why = "bad xattr block magic";
		return E4_CORRUPT;
	}
	if (e4_le32(blk + 8) != 1) {
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

/* ---- POSIX ACLs ------------------------------------------------------- */

#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20
#define EXT4_ACL_VERSION 1
#define POSIX_ACL_XATTR_VERSION 2
#define ACL_HEADER 4
#define ACL_SHORT 4     /* ext4_acl_entry_short */
#define ACL_LONG 8      /* ext4_acl_entry, posix_acl_xattr_entry */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

enum e4_status e4_acl_to_vfs(const uint8_t *in, size_t n, uint8_t *out,
			     size_t *out_len, const char **why)
{
	size_t body, count, at = ACL_HEADER, o = ACL_HEADER;

	*out_len = 0;
	if (n < ACL_HEADER) {
		*why = "ACL shorter than its header";
		return E4_CORRUPT;
	}
	if (e4_le32(in) != EXT4_ACL_VERSION) {
		*why = "ACL header not version 1 (ext4's format)";
		return E4_CORRUPT;
	}
	/* ext4_acl_count: the first four entries counted short */
	body = n - ACL_HEADER;
	if (body < 4 * ACL_SHORT) {
		if (body % ACL_SHORT) {
			*why = "ACL size fits no count of entries";
			return E4_CORRUPT;
		}
		count = body / ACL_SHORT;
	} else {
		if ((body - 4 * ACL_SHORT) % ACL_LONG) {
			*why = "ACL size fits no count of entries";
			return E4_CORRUPT;
		}
		count = (body - 4 * ACL_SHORT) / ACL_LONG + 4;
	}
	if (!count) {
		*why = "no entries: Linux reads it as no ACL (getxattr gives ENODATA)";
		return E4_NOT_FOUND;
	}
	put32(out, POSIX_ACL_XATTR_VERSION);
	for (size_t i = 0; i < count; i++) {
		uint16_t tag, perm;
		uint32_t id = 0xffffffffu;   /* ACL_UNDEFINED_ID */

		if (n - at < ACL_SHORT) {
			*why = "ACL entry past the end of the value";
			return E4_CORRUPT;
		}
		tag = e4_le16(in + at);
		perm = e4_le16(in + at + 2);
		switch (tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			at += ACL_SHORT;
			break;
		case ACL_USER:
		case ACL_GROUP:
			if (n - at < ACL_LONG) {
				*why = "ACL entry past the end of the value";
				return E4_CORRUPT;
			}
			id = e4_le32(in + at + 4);
			at += ACL_LONG;
			break;
		default:
			*why = "ACL entry of an unknown tag";
			return E4_CORRUPT;
		}
		put16(out + o, tag);
		put16(out + o + 2, perm);
		put32(out + o + 4, id);
		o += ACL_LONG;
	}
	if (at != n) {
		*why = "ACL bytes after its last entry";
		return E4_CORRUPT;
	}
	*out_len = o;
	return E4_OK;
}

enum e4_status e4_acl_text(const uint8_t *v, size_t n, char *out)
{
	char *p = out;

	*p = 0;
	if (n < ACL_HEADER || (n - ACL_HEADER) % ACL_LONG ||
	    e4_le32(v) != POSIX_ACL_XATTR_VERSION)
		return E4_CORRUPT;
	for (size_t at = ACL_HEADER; at < n; at += ACL_LONG) {
		uint16_t tag = e4_le16(v + at), perm = e4_le16(v + at + 2);
		uint32_t id = e4_le32(v + at + 4);
		const char *name;

		switch (tag) {
		case ACL_USER_OBJ: case ACL_USER: name = "user"; break;
		case ACL_GROUP_OBJ: case ACL_GROUP: name = "group"; break;
		case ACL_MASK: name = "mask"; break;
		case ACL_OTHER: name = "other"; break;
		default:
			*out = 0;
			return E4_CORRUPT;
		}
		/* at most "group:4294967295:rwx," (21) */
		p += sprintf(p, "%s%s:", p == out ? "" : ",", name);
		if (tag == ACL_USER || tag == ACL_GROUP)
			p += sprintf(p, "%u", (unsigned)id);
		p += sprintf(p, ":%c%c%c", perm & 4 ? 'r' : '-', perm & 2 ? 'w' : '-',
			     perm & 1 ? 'x' : '-');
	}
	return E4_OK;
}

#include <string.h>
#include "dirblock.h"
#include "byteorder.h"

#define DX_ROOT_INFO 0x18    /* struct dx_root_info in block 0 */
#define DX_ROOT_ENTRIES 0x20 /* after the 8-byte info */
#define DX_NODE_ENTRIES 0x08 /* after the empty entry's header */

/* ext2fs_get_rec_len: 0 and 65535 mean a whole 64 KiB block; the low two
 * bits carry bits 16-17 of larger lengths. */
static uint32_t rec_len(const uint8_t *p, size_t block_size)
{
	unsigned int len = e4_le16(p);

	if (len == 65535 || len == 0)
		return (uint32_t)block_size;
	return (len & 65532) | ((len & 3) << 16);
}

int e4_dirent_is_dot(const struct e4_dirent *de)
{
	return (de->name_len == 1 && de->name[0] == '.') ||
	       (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.');
}

enum e4_status e4_dirblock_next(const uint8_t *blk,
				const struct e4_dirblock_rules *rules,
				size_t *off, struct e4_dirent *de,
				const char **why)
{
	size_t size = rules->block_size, o = *off, need;
	const uint8_t *p;

	*why = NULL;
	if (o >= size)
		return E4_NOT_FOUND;
	memset(de, 0, sizeof(*de));
	de->offset = o;
	if (size - o < E4_DIRENT_HEADER) {
		*why = "directory entry header runs past the block";
		return E4_CORRUPT;
	}
	p = blk + o;
	de->inode = e4_le32(p);
	de->rec_len = rec_len(p + 4, size);
	de->name_len = p[6];
	de->file_type = p[7];
	de->name = p + E4_DIRENT_HEADER;
	if (de->rec_len < 12) {
		*why = "rec_len is smaller than minimal";
		return E4_CORRUPT;
	}
	if (de->rec_len % 4) {
		*why = "rec_len % 4 != 0";
		return E4_CORRUPT;
	}
	if (de->rec_len > size - o) {
		*why = "directory entry overrun";
		return E4_CORRUPT;
	}
	need = (E4_DIRENT_HEADER + (size_t)de->name_len + 3) & ~(size_t)3;
	/* The kernel's is_fake_dir_entry(): dots and the csum tail store no
	 * hash, every other entry (unused ones too) has room for one. */
	if (rules->hashed && !e4_dirent_is_dot(de) &&
	    de->file_type != E4_DIRENT_TAIL_FT)
		need += E4_DIRENT_HASH_SIZE;
	if (de->rec_len < need) {
		*why = "rec_len is too small for name_len";
		return E4_CORRUPT;
	}
	if (de->inode && de->name_len == 0) {
		/* readdir refuses it (verify_dirent_name: EIO) */
		*why = "entry in use with an empty name";
		return E4_CORRUPT;
	}
	if (rules->inodes_count && de->inode > rules->inodes_count) {
		*why = "inode out of bounds";
		return E4_CORRUPT;
	}
	de->is_tail = de->inode == 0 && de->rec_len == E4_DIRENT_TAIL_SIZE &&
		      de->name_len == 0 && de->file_type == E4_DIRENT_TAIL_FT &&
		      o + E4_DIRENT_TAIL_SIZE == size;
	if (rules->hashed && de->inode && !e4_dirent_is_dot(de) &&
	    de->file_type != E4_DIRENT_TAIL_FT) {
		const uint8_t *h = p + ((E4_DIRENT_HEADER + de->name_len + 3) & ~3u);

		de->has_hash = 1;
		de->hash = e4_le32(h);
		de->minor_hash = e4_le32(h + 4);
	}
	*off = o + de->rec_len;
	return E4_OK;
}

static size_t dx_limit(size_t space, int csum)
{
	if (csum)
		space -= E4_DX_TAIL_SIZE;
	return space / 8;
}

static enum e4_status countlimit(const uint8_t *p, size_t want_limit,
				 struct e4_dx_node *out, const char **why)
{
	out->limit = e4_le16(p);
	out->count = e4_le16(p + 2);
	out->entries = p;
	if (out->limit != want_limit) {
		*why = "dx limit does not match the block size";
		return E4_CORRUPT;
	}
	if (out->count == 0 || out->count > out->limit) {
		*why = out->count ? "dx count above its limit" : "dx count is 0";
		return E4_CORRUPT;
	}
	return E4_OK;
}

enum e4_status e4_dx_root_parse(const uint8_t *blk, size_t block_size,
				int csum, unsigned int max_levels,
				struct e4_dx_node *out, const char **why)
{
	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (block_size < 1024 || block_size > 65536) {
		*why = "bad block size";
		return E4_CORRUPT;
	}
	/* "." at 0 (rec_len 12), ".." at 12 over the rest of the block. */
	if (e4_le16(blk + 4) != 12 || blk[6] != 1 || blk[8] != '.' ||
	    blk[12 + 6] != 2 || blk[12 + 8] != '.' || blk[12 + 9] != '.' ||
	    rec_len(blk + 12 + 4, block_size) != block_size - 12) {
		*why = "dx_root without its \".\" and \"..\" entries";
		return E4_CORRUPT;
	}
	if (e4_le32(blk + DX_ROOT_INFO) != 0) {
		*why = "dx_root reserved_zero is not zero";
		return E4_CORRUPT;
	}
	out->hash_version = blk[DX_ROOT_INFO + 4];
	out->indirect_levels = blk[DX_ROOT_INFO + 6];
	if (blk[DX_ROOT_INFO + 5] != 8) {
		*why = "dx_root info_length is not 8";
		return E4_CORRUPT;
	}
	if (blk[DX_ROOT_INFO + 7] & 1) {
		*why = "unimplemented dx_root hash flags";
		return E4_CORRUPT;
	}
	if (out->indirect_levels >= max_levels) {
		*why = "too many htree levels";
		return E4_CORRUPT;
	}
	return countlimit(blk + DX_ROOT_ENTRIES,
			  dx_limit(block_size - DX_ROOT_ENTRIES, csum), out, why);
}

enum e4_status e4_dx_node_parse(const uint8_t *blk, size_t block_size,
				int csum, struct e4_dx_node *out,
				const char **why)
{
	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (block_size < 1024 || block_size > 65536) {
		*why = "bad block size";
		return E4_CORRUPT;
	}
	if (e4_le32(blk) != 0 || rec_len(blk + 4, block_size) != block_size) {
		*why = "dx_node without its empty entry over the block";
		return E4_CORRUPT;
	}
	return countlimit(blk + DX_NODE_ENTRIES,
			  dx_limit(block_size - DX_NODE_ENTRIES, csum), out, why);
}

void e4_dx_entry(const struct e4_dx_node *n, unsigned int i, uint32_t *hash,
		 uint32_t *lblk)
{
	const uint8_t *e = n->entries + 8 * (size_t)i;

	*hash = i ? e4_le32(e) : 0;
	*lblk = e4_le32(e + 4);
}

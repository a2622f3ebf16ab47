/* ext4 directory blocks (fs/ext4/ext4.h struct ext4_dir_entry_2, dx_root,
 * dx_node), checked entry by entry as the kernel's __ext4_check_dir_entry
 * and dx_probe check them.  Pure. */
#ifndef E4_DIRBLOCK_H
#define E4_DIRBLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_DIRENT_HEADER 8       /* inode, rec_len, name_len, file_type */
#define E4_DIRENT_HASH_SIZE 8    /* struct ext4_dir_entry_hash */
#define E4_DIRENT_TAIL_SIZE 12   /* struct ext4_dir_entry_tail */
#define E4_DIRENT_TAIL_FT 0xde   /* its det_reserved_ft */
#define E4_DX_TAIL_SIZE 8        /* struct dx_tail */

/* How a directory's entries are laid out. */
struct e4_dirblock_rules {
	size_t block_size;
	uint32_t inodes_count;  /* entries naming a larger inode are invalid */
	int hashed;             /* casefolded and encrypted: each entry but
				 * "." and ".." stores its hash pair after the
				 * name (ext4_dir_rec_len with a dir) */
};

struct e4_dirent {
	uint32_t inode;         /* 0: unused space */
	uint32_t rec_len;       /* decoded (ext2fs_get_rec_len) */
	uint8_t name_len;
	uint8_t file_type;
	const uint8_t *name;
	size_t offset;          /* of the entry in the block */
	int is_tail;            /* the metadata_csum tail (no entry) */
	int has_hash;
	uint32_t hash, minor_hash;
};

/* The entry at *off (a multiple of 4 below block_size) of a directory
 * block.  E4_OK: *de filled in and *off advanced past it.  E4_NOT_FOUND at
 * the end of the block.  E4_CORRUPT with *why when the entry is invalid
 * (rec_len below 12 or not a multiple of 4, too small for the name (and
 * hash), running past the block, or an inode number above inodes_count);
 * the rest of the block is then unreadable, as for the kernel. */
enum e4_status e4_dirblock_next(const uint8_t *blk,
				const struct e4_dirblock_rules *rules,
				size_t *off, struct e4_dirent *de,
				const char **why);

/* Is the entry "." or ".."? */
int e4_dirent_is_dot(const struct e4_dirent *de);

/* htree (dx) blocks.  dx_root: "." and ".." entries, struct dx_root_info
 * at 0x18, then dx_countlimit and dx_entry[]; dx_node: one empty entry
 * over the block, then the same.  entries[i] = le32 hash (0 for i = 0),
 * le32 logical block. */
struct e4_dx_node {
	uint8_t hash_version;     /* root only */
	uint8_t indirect_levels;  /* root only */
	unsigned int count, limit;
	const uint8_t *entries;
};

/* Check a dx_root as dx_probe does: the dot entries, reserved_zero,
 * info_length 8, no unused_flags bit 0, indirect_levels at most
 * max_levels - 1 (2, or 3 with largedir), limit equal to what the block
 * holds (less the dx_tail when csum), 1 <= count <= limit. */
enum e4_status e4_dx_root_parse(const uint8_t *blk, size_t block_size,
				int csum, unsigned int max_levels,
				struct e4_dx_node *out, const char **why);
/* The same for an interior dx_node block. */
enum e4_status e4_dx_node_parse(const uint8_t *blk, size_t block_size,
				int csum, struct e4_dx_node *out,
				const char **why);
void e4_dx_entry(const struct e4_dx_node *n, unsigned int i, uint32_t *hash,
		 uint32_t *lblk);

#endif

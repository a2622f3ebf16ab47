/* ext4 extent tree nodes (fs/ext4/ext4_extents.h), checked as the kernel's
 * __ext4_ext_check and ext4_valid_extent_entries check them.  Pure: the
 * walk over the tree (each block once) is the image layer's. */
#ifndef E4_EXTENT_H
#define E4_EXTENT_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_EXTENT_MAGIC 0xf30a
#define E4_EXTENT_MAX_DEPTH 5        /* EXT4_MAX_EXTENT_DEPTH */
#define E4_EXTENT_HEADER_SIZE 12     /* struct ext4_extent_header */
#define E4_EXTENT_ENTRY_SIZE 12      /* struct ext4_extent / ext4_extent_idx */
#define E4_EXTENT_INIT_MAX_LEN 32768 /* EXT_INIT_MAX_LEN */
#define E4_EXTENT_ROOT_SIZE 60       /* i_block */

/* The filesystem's block range: a tree or data block must lie above
 * first_data_block and below blocks (ext4_sb_block_valid). */
struct e4_block_range {
	uint64_t first_data_block;
	uint64_t blocks;
};

/* One entry: in a leaf an extent (len blocks from lblk at pblk), in an
 * index node a child (the node at pblk covers logical blocks from lblk). */
struct e4_extent {
	uint32_t lblk;
	uint32_t len;       /* leaf: 1..32768; index: 0 */
	uint64_t pblk;
	int unwritten;      /* leaf: preallocated, reads as zeros */
};

struct e4_extent_node {
	const uint8_t *buf;
	unsigned int depth;   /* 0: leaf */
	unsigned int entries;
};

/* Check the node in buf (size bytes: 60 for the root in i_block, else the
 * block size) and fill in node.  depth is the depth the parent expects
 * (-1 for the root, which may be 0..5).  Its entries must lie in the
 * logical range [lblk_start, lblk_end) that the parent gave it, the first
 * starting at lblk_start unless it is the root, in strictly increasing,
 * non-overlapping order, at physical blocks inside range.  E4_CORRUPT with
 * *why (a static string) otherwise. */
enum e4_status e4_extent_node_check(const uint8_t *buf, size_t size,
				    int depth, uint64_t lblk_start,
				    uint64_t lblk_end,
				    const struct e4_block_range *range,
				    struct e4_extent_node *node,
				    const char **why);

/* Entry i (< node->entries) of a checked node. */
void e4_extent_node_entry(const struct e4_extent_node *node, unsigned int i,
			  struct e4_extent *out);

/* Reads tree block pblk (block_size bytes) into buf: E4_OK or an error. */
typedef enum e4_status (*e4_read_block_fn)(void *arg, uint64_t pblk,
					   uint8_t *buf);
/* Receives each leaf extent starting below lblk_end, in increasing
 * order; non-zero stops the walk. */
typedef int (*e4_extent_fn)(void *arg, const struct e4_extent *e);

/* Walk the tree rooted in the 60 bytes of i_block: every node checked
 * (e4_extent_node_check) before its entries are used, each tree block read
 * at most once (a block referenced twice is an error), depth at most 5;
 * subtrees starting at or past lblk_end are not read.  E4_OK, E4_STOPPED,
 * the reader's error, or E4_CORRUPT; *why (static) and *bad_block (0 for
 * the root) say what and where.  The extents before the damage have been
 * passed. */
enum e4_status e4_extent_walk(const uint8_t root[E4_EXTENT_ROOT_SIZE],
			      size_t block_size,
			      const struct e4_block_range *range,
			      uint64_t lblk_end, e4_read_block_fn read,
			      e4_extent_fn fn, void *arg, const char **why,
			      uint64_t *bad_block);

/* The same for indirect block maps (ext2/ext3, non-extent ext4 files):
 * i_block[0..11] direct pointers, [12] single, [13] double and [14] triple
 * indirect; each indirect block read at most once; pointers must lie in
 * range (0 is a hole).  fn gets one-block extents (lblk, len 1, pblk). */
enum e4_status e4_indirect_walk(const uint8_t root[E4_EXTENT_ROOT_SIZE],
				size_t block_size,
				const struct e4_block_range *range,
				uint64_t lblk_end, e4_read_block_fn read,
				e4_extent_fn fn, void *arg, const char **why,
				uint64_t *bad_block);

#endif

/* The jbd2 log as evidence: every transaction whose blocks are still in
 * the journal, live or past the live log, with the copies of filesystem
 * blocks it holds and how far each copy can be trusted.  The walk reads
 * the whole log area once (plus each surviving copy once more to verify
 * its checksum), whatever s_start says: after a clean unmount the log is
 * "empty" but its blocks are all still there. */
#ifndef E4_JOURNAL_H
#define E4_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include "jbd2.h"

/* How far a copy can be trusted. */
enum e4_jcopy_trust {
	E4_JCOPY_VERIFIED,      /* its csum v2/v3 tag checksum matches */
	E4_JCOPY_COMMITTED,     /* its transaction's commit block is there;
				 * no checksum to check it against */
	E4_JCOPY_UNCOMMITTED,   /* no commit block found (overwritten by a
				 * later lap, or a crash before commit) */
};

/* A copy of filesystem block fs_block, as it was when transaction
 * trans[trans] committed.  Only copies still readable are listed: one
 * whose journal block a newer transaction took, or whose tag checksum
 * fails, is counted in its transaction, not listed. */
struct e4_jcopy {
	uint64_t fs_block;
	uint32_t jblock;        /* journal block holding it */
	uint32_t trans;         /* index into the transactions */
	uint8_t escaped;        /* restore the magic in its first 4 bytes */
	uint8_t trust;          /* enum e4_jcopy_trust */
};

struct e4_jtrans {
	uint32_t sequence;
	int32_t age;            /* sequence - s_sequence as a signed
				 * distance: the order of transactions */
	uint32_t first_jblock;  /* its first descriptor, revoke or commit */
	int committed;
	int commit_csum;        /* 0 none, 1 matches, -1 does not */
	uint64_t commit_sec;
	uint32_t commit_nsec;
	int live;               /* in the log the kernel would replay */
	size_t first_copy, ncopies;     /* into e4_journal_copy() */
	unsigned int descriptors;
	unsigned int bad_descriptors;   /* tail checksum failed or tags bad */
	unsigned int overwritten;       /* copies whose block a newer
					 * transaction took */
	unsigned int bad_tag_csum;      /* copies whose checksum failed */
	unsigned int revokes;           /* distinct blocks revoked, from */
	size_t first_revoke;            /* e4_journal_revoke(first_revoke) */
};

struct e4_journal;

/* Reads journal block jblock (the superblock is block 0) into buf
 * (block_size bytes).  E4_OK or an error. */
typedef enum e4_status (*e4_jread_fn)(void *arg, uint32_t jblock, uint8_t *buf);

/* Walk the journal of nblocks blocks read through read.  fs_block_size:
 * the filesystem's block size, which the journal must share.
 * fs_fast_commit: the filesystem has the fast_commit feature; its area at
 * the journal's end stays reserved when a clean unmount clears the
 * journal's own flag (jbd2_mark_journal_empty), so the log ends before it
 * either way.  E4_CORRUPT
 * / E4_UNRECOGNIZED with *why when the superblock is unusable, E4_NOMEM,
 * or the reader's error for the superblock; a block of the log that
 * cannot be read is counted (e4_journal_unreadable), not fatal. */
enum e4_status e4_journal_load(e4_jread_fn read, void *arg, uint32_t nblocks,
			       uint32_t fs_block_size, int fs_fast_commit,
			       struct e4_journal **out, const char **why);
void e4_journal_free(struct e4_journal *j);
/* Hand the reader's state (arg) to the journal: owner_free(owner) when
 * the journal is freed. */
void e4_journal_set_owner(struct e4_journal *j, void *owner,
			  void (*owner_free)(void *));

const struct e4_jbd2_sb *e4_journal_sb(const struct e4_journal *j);
/* The superblock's own checksum: 0 none (no csum v2/v3), 1 matches, -1. */
int e4_journal_sb_csum(const struct e4_journal *j);
unsigned int e4_journal_unreadable(const struct e4_journal *j);

/* Transactions, oldest first (by age). */
size_t e4_journal_ntrans(const struct e4_journal *j);
const struct e4_jtrans *e4_journal_trans(const struct e4_journal *j, size_t i);

/* Copies in transaction order, each transaction's in the order of its
 * tags. */
size_t e4_journal_ncopies(const struct e4_journal *j);
const struct e4_jcopy *e4_journal_copy(const struct e4_journal *j, size_t i);

/* The copies of fs_block, oldest first: *first and the count returned
 * (indexes into e4_journal_copy are first..first+n-1 of a list sorted by
 * block; use e4_journal_block_copy to get them). */
size_t e4_journal_block_copies(const struct e4_journal *j, uint64_t fs_block,
			       size_t *first);
const struct e4_jcopy *e4_journal_block_copy(const struct e4_journal *j,
					     size_t k);
/* The copies of every fs block in [lo, hi): the count, from *first (for
 * e4_journal_block_copy), sorted by block then age. */
size_t e4_journal_range_copies(const struct e4_journal *j, uint64_t lo,
			       uint64_t hi, size_t *first);

/* The distinct filesystem blocks the journal holds copies of, sorted, in
 * a malloc'd array (*out; NULL and 0 for none).  E4_OK or E4_NOMEM. */
enum e4_status e4_journal_blocks(const struct e4_journal *j, uint64_t **out,
				 size_t *n);

/* Read copy c's bytes into buf (block_size), the escaped magic put back. */
enum e4_status e4_journal_read_copy(const struct e4_journal *j,
				    const struct e4_jcopy *c, uint8_t *buf);

/* Revoke records: filesystem block and the transaction (index) that
 * revoked it, one per (block, transaction), in transaction order and
 * within a transaction by block (each transaction's: first_revoke,
 * revokes, the distinct blocks it revoked). */
struct e4_jrevoke {
	uint64_t fs_block;
	uint32_t trans;
};
size_t e4_journal_nrevokes(const struct e4_journal *j);
const struct e4_jrevoke *e4_journal_revoke(const struct e4_journal *j,
					   size_t i);

/* jbd2's replay rule: is a copy of blk from transaction (index) from
 * cancelled by a revoke of blk in a transaction in [from, limit)?  (A
 * revoke cancels the copies of its own and older transactions.) */
int e4_journal_revoked(const struct e4_journal *j, uint64_t blk, uint32_t from,
		       uint32_t limit);

/* A trust level in words ("verified", "committed", "uncommitted"). */
const char *e4_jcopy_trust_name(enum e4_jcopy_trust t);

#endif

/* The journal of an opened image, and what its blocks are. */
#ifndef E4_JOURNAL_FS_H
#define E4_JOURNAL_FS_H
#include "fs.h"

/* Load the internal journal (inode s_journal_inum) of fs.  E4_NOT_FOUND
 * without one, E4_UNSUPPORTED for an external journal device; other
 * errors reported.  The journal keeps fs; free it first. */
enum e4_status e4_fs_journal(struct e4_fs *fs, struct e4_journal **out);
/* The journal's inode number (s_journal_inum; 0 for none or external). */
uint32_t e4_fs_journal_inode(struct e4_fs *fs);

/* What a filesystem block is (what the live image says it is now). */
enum e4_block_kind {
	E4_BLOCK_OTHER,
	E4_BLOCK_SUPER,          /* a superblock or group descriptors */
	E4_BLOCK_BLOCK_BITMAP,
	E4_BLOCK_INODE_BITMAP,
	E4_BLOCK_INODE_TABLE,
	E4_BLOCK_DIRECTORY,      /* of a live directory */
	E4_BLOCK_EXTENT_TREE,    /* of a live file */
	E4_BLOCK_JOURNAL,
};

struct e4_block_class {
	enum e4_block_kind kind;
	uint32_t group;          /* bitmaps, inode tables, super */
	uint32_t first_ino;      /* inode table: the inodes it holds */
	uint32_t last_ino;
	uint32_t owner;          /* directory / extent tree: the inode */
	uint64_t lblk;           /* directory: its logical block */
};

struct e4_blockmap_index;

/* Classify the blocks of the sorted, distinct list blocks[0..n-1]: the
 * group layout, and one scan of the in-use inodes for the owners of
 * directory and extent-tree blocks (time linear in the metadata; memory
 * in n).  Errors of single inodes are reported and skipped. */
enum e4_status e4_fs_classify_blocks(struct e4_fs *fs, const uint64_t *blocks,
				     size_t n, struct e4_blockmap_index **out);
/* The class of blocks[i]. */
const struct e4_block_class *e4_blockmap_index_get(const struct e4_blockmap_index *x,
						   size_t i);
void e4_blockmap_index_free(struct e4_blockmap_index *x);
/* The group layout alone (no scan): super, bitmaps, inode tables. */
void e4_fs_block_layout(struct e4_fs *fs, uint64_t blk,
			struct e4_block_class *out);
const char *e4_block_kind_name(enum e4_block_kind k);

#endif

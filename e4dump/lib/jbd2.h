/* The jbd2 journal's on-disk blocks (Linux 6.1 include/linux/jbd2.h; the
 * kernel's fs/jbd2/recovery.c reads them), parsed from bytes.  Every field
 * is big-endian.  Pure: which blocks to read, and in which order, is the
 * image layer's.  Checksums are not verified here (crc32c lives in
 * libext2fs, which this library does not use). */
#ifndef E4_JBD2_H
#define E4_JBD2_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_JBD2_MAGIC 0xc03b3998u
#define E4_JBD2_HEADER_SIZE 12       /* journal_header_t */

/* h_blocktype */
#define E4_JBD2_DESCRIPTOR 1
#define E4_JBD2_COMMIT 2
#define E4_JBD2_SUPERBLOCK_V1 3
#define E4_JBD2_SUPERBLOCK_V2 4
#define E4_JBD2_REVOKE 5
#define E4_JBD2_FC 6

/* s_feature_incompat */
#define E4_JBD2_INCOMPAT_REVOKE 0x01
#define E4_JBD2_INCOMPAT_64BIT 0x02
#define E4_JBD2_INCOMPAT_ASYNC_COMMIT 0x04
#define E4_JBD2_INCOMPAT_CSUM_V2 0x08
#define E4_JBD2_INCOMPAT_CSUM_V3 0x10
#define E4_JBD2_INCOMPAT_FAST_COMMIT 0x20
#define E4_JBD2_INCOMPAT_KNOWN 0x3f

/* t_flags */
#define E4_JBD2_FLAG_ESCAPE 1        /* the copy's first 4 bytes were the magic */
#define E4_JBD2_FLAG_SAME_UUID 2     /* no 16-byte UUID after this tag */
#define E4_JBD2_FLAG_DELETED 4
#define E4_JBD2_FLAG_LAST_TAG 8

/* The journal superblock (journal_superblock_t), block 0 of the journal. */
struct e4_jbd2_sb {
	unsigned int version;        /* 1 or 2 (blocktype 3 or 4) */
	uint32_t block_size;         /* 0x0c s_blocksize */
	uint32_t maxlen;             /* 0x10 s_maxlen: blocks in the journal */
	uint32_t first;              /* 0x14 s_first: first block of the log */
	uint32_t sequence;           /* 0x18 s_sequence: first commit ID expected */
	uint32_t start;              /* 0x1c s_start: 0 = the log is empty (clean) */
	int32_t error;               /* 0x20 s_errno */
	uint32_t compat;             /* 0x24 (v2 only, else 0) */
	uint32_t incompat;           /* 0x28 */
	uint32_t ro_compat;          /* 0x2c */
	uint8_t uuid[16];            /* 0x30 */
	uint32_t nr_users;           /* 0x40 */
	uint8_t checksum_type;       /* 0x50: 4 = crc32c */
	uint32_t fc_blocks;          /* 0x54 s_num_fc_blks (0: 256), with FAST_COMMIT */
	uint32_t checksum;           /* 0xfc s_checksum */
	uint32_t log_end;            /* first block past the log: maxlen less the
				      * fast-commit area */
};

/* Parse and check the journal superblock in buf (len bytes, at least 1024).
 * fs_block_size: the filesystem's (an internal journal uses it).  E4_CORRUPT
 * with *why for a bad magic or type, a block size other than the
 * filesystem's, s_first or s_start outside the journal, or a fast-commit
 * area that leaves no log; E4_UNRECOGNIZED for unknown incompat features. */
enum e4_status e4_jbd2_sb_parse(const uint8_t *buf, size_t len,
				uint32_t fs_block_size, struct e4_jbd2_sb *sb,
				const char **why);

/* The block header of a journal block: 1 and *type, *sequence when buf
 * (len >= 12) starts with the jbd2 magic, else 0. */
int e4_jbd2_header(const uint8_t *buf, size_t len, uint32_t *type,
		   uint32_t *sequence);

/* One tag of a descriptor block: the filesystem block whose copy follows. */
struct e4_jbd2_tag {
	uint64_t fs_block;
	uint32_t flags;              /* E4_JBD2_FLAG_* */
	uint32_t checksum;           /* csum v3: 32 bits; v2: 16 bits; else 0 */
};

/* The bytes of one tag under sb's features (journal_tag_bytes): 16 with
 * csum v3, else 8, plus 4 with 64bit, plus 2 with csum v2. */
size_t e4_jbd2_tag_size(const struct e4_jbd2_sb *sb);

/* Called once per tag, in order; index counts from 0.  Non-zero stops. */
typedef int (*e4_jbd2_tag_fn)(void *arg, unsigned int index,
			      const struct e4_jbd2_tag *tag);

/* The tags of descriptor block buf (sb->block_size bytes), up to the one
 * flagged LAST_TAG or the end of the space tags may use (the block less
 * its 4-byte tail with csum v2/v3).  *count: the tags seen.  E4_CORRUPT
 * with *why when a tag or its UUID runs past that space, or a block number
 * does not fit in 32 bits without 64bit; the tags before it were given. */
enum e4_status e4_jbd2_tags(const struct e4_jbd2_sb *sb, const uint8_t *buf,
			    e4_jbd2_tag_fn fn, void *arg, unsigned int *count,
			    const char **why);

/* The revoke records of revoke block buf: r_count (offset 12) bytes from
 * the start, records of 4 bytes (8 with 64bit) from offset 16.  fn gets
 * each revoked filesystem block; a partial record at the end is ignored,
 * as the kernel does.  E4_CORRUPT with *why when r_count is below 16 or
 * past the usable space (the block less its tail with csum v2/v3). */
typedef int (*e4_jbd2_revoke_fn)(void *arg, uint64_t fs_block);
enum e4_status e4_jbd2_revokes(const struct e4_jbd2_sb *sb, const uint8_t *buf,
			       e4_jbd2_revoke_fn fn, void *arg,
			       unsigned int *count, const char **why);

/* A commit block (struct commit_header): its time (h_commit_sec at 0x30,
 * h_commit_nsec at 0x38; 0 when the kernel wrote none), and its checksum
 * type and size as written. */
struct e4_jbd2_commit {
	uint64_t sec;
	uint32_t nsec;
	uint8_t checksum_type;
	uint8_t checksum_size;
	uint32_t checksum;           /* h_chksum[0] */
};
void e4_jbd2_commit_parse(const uint8_t *buf, struct e4_jbd2_commit *out);

#endif

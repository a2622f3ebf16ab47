/* Inside libe4dump: the filesystem context and what its files share,
 * each section headed by the file that owns it (a checker that reads
 * ext4 structures itself uses fs_ext2.h instead).  Not installed. */
#ifndef E4_FS_PRIVATE_H
#define E4_FS_PRIVATE_H

#include <ext2fs/ext2fs.h>
#include "algs.h"
#include "blockset.h"
#include "extent.h"
#include "fs.h"
#include "fs_ext2.h"
#include "inode.h"

/* ---- fs.c: the context, its reports, its block reads ---------------- */

/* A policy met, and what opens it. */
struct e4_policy_slot {
	struct e4_context policy;   /* first context seen with it */
	int decided;
	struct e4_policy_key key;
	int reported;
};

typedef enum e4_status (*e4_moment_read_fn)(void *arg, uint64_t pblk, void *buf);

struct e4_fs {
	ext2_filsys ext2;
	struct e4_source *src;
	struct e4_fs_options opt;
	struct e4_fs_info info;
	char volume[192];               /* info.volume */
	struct e4_block_range range;
	enum e4_name_format format;     /* E4_FORMAT_AUTO until decided */
	const char *format_why;         /* what decided it */
	/* the index of encrypted inodes */
	struct e4_enc_inode *idx;
	size_t nidx, capidx, in_use;
	int idx_state;                  /* 0 not built, 1 built, -1 failed,
					 * 2 being built by a scan */
	enum e4_status idx_error;       /* why it failed */
	/* policies and keys */
	struct e4_policy_slot **slots;  /* open addressing on the key id */
	size_t nslots, capslots;
	size_t *by_policy;              /* index positions sorted by key id */
	size_t nby_policy;
	uint32_t trial_hint;            /* the directory being listed */
	uint8_t *key_used;              /* one per key of the store */
	size_t nkey_used;
	/* libext2fs' casefolding: 0 unchecked, 1 usable, -1 not */
	int casefold_state;
	/* metadata blocks read (extent tree and indirect blocks, directory
	 * blocks) and the inode each belongs to: ext4 shares none, so one
	 * claimed twice is damage, never read again */
	struct e4_blockset claimed;
	/* inode tables (itable.c) */
	uint64_t itable_blocks;         /* per group */
	uint8_t *bad_groups;            /* bitmap: table outside the fs */
	unsigned int n_bad_groups;
	uint8_t *iblock;                /* a block read outside the cache */
	struct e4_icache *icache;       /* inode-table windows (itable.c) */
	struct e4_algs *algs;           /* NULL: OpenSSL fetches each time */
	uint64_t icache_clock;
	uint8_t *icache_map;            /* the windows' memory, or NULL */
	size_t icache_map_used;
	int icache_tried;                /* the block was asked for once */
	/* the inode bitmap block read last (e4_inode_allocated): that
	 * group's, until a moment is entered or left */
	uint8_t *ibitmap;
	dgrp_t ibitmap_group;
	int ibitmap_valid;
	uint32_t scan_ino;              /* the inode a scan is visiting, */
	const uint8_t *scan_raw;        /* and its bytes in the scan's buffer */
	/* A moment (e4_fs_moment_enter): blocks read from it, the live
	 * image where it has none (E4_NOT_FOUND) */
	e4_moment_read_fn moment_read;
	void *moment_arg;
};

/* Report a diagnostic (printf-style message; never key bytes). */
void e4_report_p(struct e4_fs *fs, enum e4_diag_level level,
		 enum e4_status status, enum e4_problem problem, uint32_t ino,
		 const char *path, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
#define e4_report(fs, level, status, ino, path, ...) \
	e4_report_p(fs, level, status, E4_P_OTHER, ino, path, __VA_ARGS__)

/* Claim metadata block pblk for inode ino.  E4_OK, or E4_CORRUPT with
 * *other set when another inode has it; E4_NOMEM. */
enum e4_status e4_claim_block(struct e4_fs *fs, uint64_t pblk, uint32_t ino,
			      uint32_t *other);

/* The filesystem as it was at a moment (journal/: the journal copies of
 * a given time): while entered, every reader of the core (inodes, block
 * maps, directories, symlinks, xattrs) reads its blocks through read --
 * block pblk as the moment has it, or E4_NOT_FOUND for the live block --
 * with the inode-table cache bypassed and a claimed-blocks set of its own
 * (each tree block once, as live).  The fs must not be used by another
 * thread meanwhile; leave restores the live view. */
struct e4_fs_moment_save {
	struct e4_blockset claimed;
	uint32_t scan_ino;
	const uint8_t *scan_raw;
	e4_moment_read_fn read;
	void *arg;
};
void e4_fs_moment_enter(struct e4_fs *fs, e4_moment_read_fn read, void *arg,
			struct e4_fs_moment_save *save);
void e4_fs_moment_leave(struct e4_fs *fs, struct e4_fs_moment_save *save);

/* ---- itable.c, scan.c, index.c: inode tables, their scan, the index --- */

/* Check the inode tables' geometry at open (s_inodes_per_group, each
 * group's table inside the filesystem); groups whose table is not are
 * marked and their inodes unreadable. */
enum e4_status e4_itable_check(struct e4_fs *fs);
/* The on-disk bytes of inode ino (EXT2_INODE_SIZE bytes at *p, valid
 * until the next call).
 * E4_INVALID (number out of range), E4_CORRUPT (its group's table is
 * outside the filesystem), E4_IO; nothing reported. */
enum e4_status e4_inode_bytes(struct e4_fs *fs, uint32_t ino, const uint8_t **p);
/* The inodes of group g that can be read (its table inside the
 * filesystem, initialized, up to bg_itable_unused): 0 .. g's first n. */
uint32_t e4_itable_group_inodes(const struct e4_fs *fs, dgrp_t g);
/* Scan the inode tables (scan.c): every in-use inode (all: every inode)
 * decoded, to fn; fs->scan_ino/scan_raw name it meanwhile.  E4_OK,
 * E4_STOPPED (fn), or E4_NOMEM before anything was read; unreadable
 * table blocks are reported and skipped. */
enum e4_status e4_itable_scan(struct e4_fs *fs, int all, e4_inode_fn fn, void *arg);
void e4_icache_free(struct e4_fs *fs);
/* The index of encrypted inodes, built by a scan (index.c): add one
 * in-use inode (non-zero when out of memory), then end with the scan's
 * status: E4_OK makes it built, E4_STOPPED discards it, E4_NOMEM and
 * E4_IO make it failed. */
int e4_index_add(struct e4_fs *fs, const struct e4_inode *in);
void e4_index_done(struct e4_fs *fs, enum e4_status st);

/* ---- inode.c, xattr.c: one inode -------------------------------------- */

/* Decode and check an inode libext2fs read (e4_inode_read's rules). */
enum e4_status e4_inode_decode(struct e4_fs *fs, uint32_t ino,
			       const struct ext2_inode_large *disk,
			       const char *path, struct e4_inode *out);

/* The inline data of an inode: the 60 bytes of i_block followed by the
 * "system.data" xattr value (malloc'd).  Reported errors. */
enum e4_status e4_inline_data(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, uint8_t **data, size_t *len);

/* Does this directory store a hash pair in its entries (casefolded and
 * encrypted)? */
int e4_inode_hashed_dir(const struct e4_inode *in);

/* ---- dirread.c: the directory reader (raw entries, checked) ------------ */

/* The directory reader: every valid entry in use (dots included; unused
 * space and the csum tail left out), block by block in logical order.
 * A block that cannot be read or parsed, and a hole, is reported and
 * marks the directory damaged; the rest is read.  fn returns non-zero to
 * stop (E4_STOPPED). */
struct e4_dirent;
typedef int (*e4_dirent_fn)(void *arg, const struct e4_dirent *de);

struct e4_dir_read_info {
	int hashed;             /* entries store a casefold hash pair */
	int htree_hash;         /* readdir would give Linux's hash pair: the
				 * directory is read through the htree code */
	int hash_version;       /* then with this version (unsigned adjusted) */
	int damaged;
};

enum e4_status e4_dir_iterate(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, e4_dirent_fn fn, void *arg,
			      struct e4_dir_read_info *info);

/* Does Linux 6.1's readdir give entries the hash pair of the htree code
 * (which no-key names then carry)?  is_dx_dir(): with dir_index, for
 * indexed directories, one-block ones and inline ones; an index that
 * dx_probe rejects falls back to linear reading (hash 0).  flags: the
 * directory's i_flags; blocks: its size in blocks; dx_info: bytes
 * 0x18..0x1f of its block 0 when it is a valid dx_root, else NULL.  The
 * hash version (unsigned adjusted), or -1. */
int e4_dir_readdir_hash(struct e4_fs *fs, uint32_t flags, uint64_t blocks,
			const uint8_t *dx_info);

/* ---- keys.c: which key opens a policy --------------------------------- */

/* The cipher of inode ino, reporting why there is none (naming path):
 * E4_NO_KEY ("no key for descriptor ..."), an unsupported mode, ...
 * out NULL: only whether the policy is open, reported the same way. */
enum e4_status e4_fs_inode_cipher_reported(struct e4_fs *fs, uint32_t ino,
					   const struct e4_context *ctx,
					   enum e4_key_use use,
					   const char *path,
					   struct e4_cipher **out);

/* ---- journal_fs.c: sorted block lists --------------------------------- */

/* The first index of sorted v[0..n-1] whose value is >= x (n: none). */
size_t e4_u64_lower_bound(const uint64_t *v, size_t n, uint64_t x);

/* ---- tree/dir.c: listings, for journal/ (names of journal copies) ----- */

/* The no-key name Linux shows for stored name raw[len] of a directory
 * (tree/dir.c: the one rule, for listings and journal copies alike):
 * hashed (casefold + encrypt: the stored hash pair, has_hash), else
 * readdir_hash (the htree hash version readdir uses, -1 none) hashes the
 * ciphertext.  "?" when there is none.  out: E4_NOKEY_NAME_MAX + 1. */
void e4_nokey_name_of(struct e4_fs *fs, int hashed, int readdir_hash,
		       const uint8_t *raw, size_t len, int has_hash, uint32_t hash,
		       uint32_t minor, char *out);

/* A listing of given entries of directory in (journal copies of its
 * blocks, say), made by the rules of e4_dir_list: names decrypted with
 * the cipher of context ctx (NULL: none known, every name its no-key
 * name) under the same trust rule, no-key names from info's hash facts
 * (hashed, htree_hash, hash_version), order (E4_LIST_UNSORTED keeps the
 * given one) and duplicates.  Nothing is reported about single names.
 * E4_OK, E4_NOMEM. */
struct e4_dir;
enum e4_status e4_dir_list_given(struct e4_fs *fs, const struct e4_inode *in,
				 const struct e4_context *ctx,
				 const struct e4_dir_read_info *info,
				 const struct e4_dirent *ents, size_t n,
				 unsigned int flags, struct e4_dir **out);

#endif

/* Inodes, decoded and checked as the kernel's ext4_iget checks them. */
#ifndef E4_INODE_H
#define E4_INODE_H

#include <stddef.h>
#include <stdint.h>
#include "context.h"
#include "fs.h"
#include "nokey.h"

struct e4_timestamp {
	int64_t sec;        /* with the extra epoch bits applied */
	uint32_t nsec;
};

/* Types of i_mode, as in <sys/stat.h>. */
#define E4_S_IFMT 0170000
#define E4_S_IFSOCK 0140000
#define E4_S_IFLNK 0120000
#define E4_S_IFREG 0100000
#define E4_S_IFBLK 0060000
#define E4_S_IFDIR 0040000
#define E4_S_IFCHR 0020000
#define E4_S_IFIFO 0010000
#define E4_ISDIR(m) (((m) & E4_S_IFMT) == E4_S_IFDIR)
#define E4_ISREG(m) (((m) & E4_S_IFMT) == E4_S_IFREG)
#define E4_ISLNK(m) (((m) & E4_S_IFMT) == E4_S_IFLNK)

/* Inode flags (i_flags) the layer acts on. */
#define E4_INODE_INDEX_FL 0x00001000
#define E4_INODE_EXTENTS_FL 0x00080000
#define E4_INODE_INLINE_DATA_FL 0x10000000
#define E4_INODE_VERITY_FL 0x00100000
#define E4_INODE_CASEFOLD_FL 0x40000000

#define E4_ROOT_INO 2           /* the root directory */
#define E4_INODE_RAW_SIZE 160   /* struct ext2_inode_large */

struct e4_inode {
	uint32_t ino;
	uint16_t mode;
	uint32_t uid, gid;
	uint16_t links;
	uint64_t size;          /* i_size (checked: 0..s_maxbytes) */
	uint64_t blocks;        /* i_blocks in 512-byte units */
	uint32_t flags;         /* i_flags */
	uint32_t generation;
	uint32_t dtime;         /* i_dtime when it is a time (0: none) */
	uint32_t orphan_next;   /* i_dtime when it is the orphan list's link
				 * to the next inode, not a time (0: not;
				 * e4_dtime_is_orphan_link) */
	struct e4_timestamp atime, mtime, ctime, crtime;
	int has_crtime;         /* the inode has room for i_crtime */
	int has_extra_times;    /* nanoseconds and epoch bits stored */
	int encrypted;          /* EXT4_ENCRYPT_FL */
	int in_use;             /* links > 0, a mode, no dtime (an orphan
				 * list's link is not one) */
	uint64_t file_acl;      /* the xattr block: i_file_acl |
				 * l_i_file_acl_high << 32 (0: none) */
	uint16_t extra_isize;   /* i_extra_isize as stored (0 for 128-byte
				 * inodes) */
	uint8_t i_block[60];    /* the block map, inline data or fast
				 * symlink bytes */
	/* The on-disk inode (first 160 bytes), for the layer itself. */
	_Alignas(8) unsigned char raw[E4_INODE_RAW_SIZE];
};

/* Read inode ino.  E4_CORRUPT (reported) for what ext4_iget refuses: an
 * i_extra_isize that is not a multiple of 4 or leaves the inode, an i_size
 * that is negative as a loff_t or above s_maxbytes; E4_INVALID for an
 * inode number outside 1..s_inodes_count; E4_IO when unreadable.  path
 * (may be NULL) names it in messages. */
enum e4_status e4_inode_read(struct e4_fs *fs, uint32_t ino, const char *path,
			     struct e4_inode *out);

/* Is i_dtime value dtime the orphan list's link to the next inode rather
 * than a time?  Without the orphan_file feature (and when its file is
 * full) the kernel chains the inodes to finish (unlinked while open, or a
 * truncate in progress) from s_last_orphan through i_dtime.  e2fsck's rule
 * (pass1.c, PR_1_LOW_DTIME "inode was part of the orphaned inode list"):
 * any nonzero i_dtime below s_inodes_count, whatever the links count,
 * unless the superblock's own s_wtime, s_mtime or s_mkfs_time is below
 * s_inodes_count too (a clock never set: then the check is off). */
int e4_dtime_is_orphan_link(const struct e4_fs *fs, uint32_t dtime);

/* Is inode ino marked in use in its group's inode bitmap (as istat's
 * "Allocated" says)?  An uninitialized bitmap marks none.  E4_INVALID
 * (number out of range), E4_CORRUPT (the bitmap block outside the
 * filesystem), E4_IO, E4_NOMEM; nothing reported. */
enum e4_status e4_inode_allocated(struct e4_fs *fs, uint32_t ino, int *allocated);

/* Called for each inode of a scan; non-zero stops it. */
typedef int (*e4_inode_fn)(void *arg, const struct e4_inode *in);

/* Scan the inode tables in inode order: every in-use inode (links > 0, a
 * mode, no dtime), or with E4_SCAN_ALL every inode.  Inodes that fail
 * e4_inode_read's checks are reported and skipped.  With E4_SCAN_INDEX
 * (in-use inodes only) the scan also builds the index of encrypted inodes
 * (e4_fs_encrypted_inodes) when it is not built yet, so that a caller
 * needing both reads the tables once.  E4_OK, E4_STOPPED, or E4_IO
 * (reported) when the scan could not go on. */
enum e4_scan_flags { E4_SCAN_ALL = 1, E4_SCAN_INDEX = 2 };
enum e4_status e4_fs_scan_inodes(struct e4_fs *fs, unsigned int flags,
				 e4_inode_fn fn, void *arg);

/* Read the encryption context of an inode.  E4_NOT_FOUND when it has
 * none; E4_CORRUPT or E4_UNRECOGNIZED with *why (static) for a bad one;
 * E4_IO when its xattrs cannot be read.  Nothing is reported. */
enum e4_status e4_inode_context(struct e4_fs *fs, const struct e4_inode *in,
				struct e4_context *ctx, const char **why);

/* One extended attribute of an inode, as e4_inode_xattrs passes it. */
struct e4_xattr_item {
	const char *name;       /* the index's prefix and the stored name
				 * ("user.foo", "system.posix_acl_access",
				 * "c" for the encryption context),
				 * NUL-terminated, unescaped */
	uint8_t index;          /* e_name_index (fs/ext4/xattr.h) */
	int listed;             /* Linux 6.1's listxattr shows it (not the
				 * encryption context, system.data, or an
				 * index without a handler) */
	const uint8_t *value;   /* value_len bytes, or NULL when not read */
	size_t value_len;
	uint64_t block;         /* 0: in the inode body, else the xattr
				 * block it is stored in */
	uint32_t value_inum;    /* the EA inode the value was read from, or 0 */
	const char *error;      /* why value is NULL (also reported) */
	const uint8_t *stored;  /* a POSIX ACL (system.posix_acl_access,
				 * _default): its bytes as ext4 stores them,
				 * stored_len; value is then its VFS form, as
				 * getxattr gives it (e4_acl_to_vfs).  NULL
				 * for other attributes and bad ACLs */
	size_t stored_len;
	const char *acl_error;  /* a POSIX ACL Linux would refuse (EINVAL),
				 * or reads as none (acl_none): why (also
				 * reported); value is then the stored bytes */
	int acl_none;           /* an ACL of no entries: Linux has no ACL
				 * there (getxattr: ENODATA), nothing lost */
};

/* Called for each attribute; the pointers are valid during the call.
 * Non-zero stops the listing. */
typedef int (*e4_xattr_item_fn)(void *arg, const struct e4_xattr_item *x);

/* Every extended attribute of in, in the order listxattr gives them: the
 * in-inode area, then the xattr block (i_file_acl); each area is passed
 * only when all its entries are valid (ext4_xattr_check_entries).  A
 * value in an EA inode (ea_inode feature) is read from it (at most
 * 64 KiB, the inode flagged EA_INODE and of the value's size); when it
 * cannot be, the attribute comes with value NULL and error set.
 * A POSIX ACL is passed in its VFS form (stored: as ext4 stores it);
 * one Linux would refuse is passed as stored, with acl_error.
 * E4_OK, E4_STOPPED (fn), E4_NOMEM, or E4_CORRUPT / E4_IO (reported,
 * naming path or the inode) when an area could not be read -- the other
 * area's attributes have been passed. */
enum e4_status e4_inode_xattrs(struct e4_fs *fs, const struct e4_inode *in,
			       const char *path, e4_xattr_item_fn fn, void *arg);

/* The same, and what could not be read said in why[why_size] (when why
 * is not NULL; "" when all was read): "in the inode: REASON", "xattr
 * block N: REASON", both joined by "; ".  quiet: nothing is reported
 * (the caller, or another reading of the same inode, reports it). */
#define E4_XATTRS_WHY_MAX 160
enum e4_status e4_inode_xattrs_why(struct e4_fs *fs, const struct e4_inode *in,
				   const char *path, e4_xattr_item_fn fn, void *arg,
				   int quiet, char *why, size_t why_size);

/* A symlink's target: decrypted when encrypted (E4_NO_KEY when its policy
 * is locked), in a malloc'd NUL-terminated buffer of *len bytes.  E4_CORRUPT
 * (reported) for a bad length, header or a NUL inside the target. */
enum e4_status e4_symlink_read(struct e4_fs *fs, const struct e4_inode *in,
			       const char *path, char **target, size_t *len);

/* The target from a symlink's stored bytes blob[size] (e4_symlink_raw;
 * taken: freed or returned as *target): checked (no NUL inside) or, when
 * encrypted, decrypted with names cipher c.  The one rule of
 * e4_symlink_read, for callers with a cipher of their own.  Reported
 * errors. */
struct e4_cipher;
enum e4_status e4_symlink_target(struct e4_fs *fs, const struct e4_inode *in,
				 const char *path, struct e4_cipher *c, uint8_t *blob,
				 size_t size, char **target, size_t *len);

/* The st_size Linux 6.1 gives a symlink whose policy is locked: for an
 * encrypted one the length of its no-key target (fscrypt_symlink_getattr:
 * the no-key name of its ciphertext with hash 0; the seed's encoding for
 * the 2015 format), else i_size.  With the key
 * it is the length e4_symlink_read returns.  Reported errors. */
enum e4_status e4_symlink_locked_size(struct e4_fs *fs, const struct e4_inode *in,
				      const char *path, uint64_t *size);

/* What readlink gives for an encrypted symlink whose policy is locked:
 * the no-key name of its ciphertext with hash 0 (the seed's encoding for
 * the 2015 format), NUL-terminated in out.  E4_INVALID when not
 * encrypted; reported errors. */
enum e4_status e4_symlink_locked_target(struct e4_fs *fs, const struct e4_inode *in,
					const char *path, char out[E4_NOKEY_NAME_MAX + 1]);

/* The stored bytes of a symlink (i_size bytes, from i_block or its first
 * block), raw: the encrypted blob of an encrypted one.  Reported errors. */
enum e4_status e4_symlink_raw(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, uint8_t **blob, size_t *size);

#endif

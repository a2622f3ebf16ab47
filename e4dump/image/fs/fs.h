/* libe4dump: an ext4 image opened read-only, and what it takes to read its
 * encrypted parts.  One struct e4_fs holds the libext2fs handle, the block
 * source, the index of encrypted inodes, the name-format decision, the
 * policies met and the keys that open them.  Nothing here prints or keeps
 * global state: problems go to the diagnostics callback, and each call
 * returns an e4_status.  A struct e4_fs is used by one thread at a time. */
#ifndef E4_FS_H
#define E4_FS_H

#include <stddef.h>
#include <stdint.h>
#include "context.h"
#include "e4status.h"
#include "fname.h"
#include "keysetup.h"
#include "keystore.h"
#include "source.h"
#include "volume.h"

struct e4_fs;

enum e4_diag_level {
	E4_DIAG_INFO,    /* what was decided (which key opened what) */
	E4_DIAG_NOTE,    /* worth knowing, nothing lost */
	E4_DIAG_WARNING, /* something was changed to be safe (a name renamed) */
	E4_DIAG_ERROR,   /* something could not be read or decrypted */
};

/* What a diagnostic is about, for programs that act on some of them
 * (verify turns them into findings).  Messages are for humans. */
enum e4_problem {
	E4_P_OTHER = 0,
	E4_P_DIR_BLOCK,     /* a directory block (or its map) is unreadable */
	E4_P_DIR_LOOP,      /* a directory entry leads to an ancestor */
	E4_P_DIR_RELINK,    /* a second entry for a directory */
	E4_P_DEPTH,         /* directories nested deeper than the limit */
	E4_P_NAME,          /* an encrypted name does not decrypt */
	E4_P_DUP_NAME,      /* two entries of a directory show one name */
	E4_P_UNUSED_INODE,  /* an entry names an inode not in use */
	E4_P_BLOCK_MAP,     /* a file's extent tree or block map is bad */
	E4_P_INODE,         /* an inode ext4 would refuse, or unreadable */
	E4_P_INODE_SIZE,    /* an i_size ext4 would refuse */
	E4_P_CONTEXT,       /* an encryption context missing or bad */
	E4_P_NO_KEY,        /* a policy no key opens */
	E4_P_SHORT,         /* the image holds less than the filesystem (or
			     * its partition table) declares */
};

/* One diagnostic.  path is the display path (every name escaped with
 * e4_escape(), E4_ESCAPE_SLASH) or NULL; ino is 0 when none applies.
 * message never holds key bytes.  Pointers are valid during the call. */
struct e4_diag {
	enum e4_diag_level level;
	enum e4_status status;
	enum e4_problem problem;
	uint32_t ino;
	const char *path;
	const char *message;
};

typedef void (*e4_diag_fn)(void *arg, const struct e4_diag *d);

#define E4_DEFAULT_MAX_DIR_ENTRIES (4u << 20)
#define E4_DEFAULT_MAX_DEPTH 8192u

struct e4_fs_options {
	enum e4_name_format format; /* E4_FORMAT_AUTO: decided from the image */
	int dummy_key_2015;         /* open 0x42.. policies as the seed's
				     * test_dummy_encryption did */
	const struct e4_keystore *keys; /* borrowed (keys may be added until
				     * the first policy is looked up); NULL:
				     * no keys */
	int listing;                /* a locked policy only means no-key names:
				     * say so as a note, not an error */
	e4_diag_fn diag;            /* NULL: diagnostics are dropped */
	void *diag_arg;
	size_t max_dir_entries;     /* 0: E4_DEFAULT_MAX_DIR_ENTRIES */
	unsigned int max_depth;     /* 0: E4_DEFAULT_MAX_DEPTH */
	struct e4_volume_choice volume; /* e4_fs_open: which volume of a
				     * disk (zeros: the disk when it is ext4,
				     * else its only ext4 partition) */
};

/* Open the image at path read-only (path taken literally): a raw file or
 * block device, or a container (container.h), and in it the volume
 * opt->volume chooses (volume.h).  On failure *out is NULL and one error
 * was reported. */
enum e4_status e4_fs_open(struct e4_fs **out, const char *path,
			  const struct e4_fs_options *opt);
/* The same over a source, which the filesystem takes over (closed with
 * it, also on failure). */
enum e4_status e4_fs_open_source(struct e4_fs **out, struct e4_source *src,
				 const struct e4_fs_options *opt);
/* Close and free (NULL is allowed).  Wipes derived key material. */
void e4_fs_close(struct e4_fs *fs);

/* Facts from the superblock. */
struct e4_fs_info {
	const char *name;           /* as opened */
	const char *container;      /* "raw", "EWF", "QCOW" (container.h) */
	const char *volume;         /* which part of it: "the whole image",
				     * "partition 2 (gpt, ...)", "offset N" */
	uint64_t offset;            /* of the volume in the image (the disk, or
				     * a container's media), bytes */
	uint64_t image_size;        /* of that image, bytes */
	unsigned int block_size;
	uint64_t blocks_count;
	uint32_t inodes_count;
	uint32_t first_ino;         /* s_first_ino: the first not reserved */
	uint8_t uuid[16];
	int encrypt_feature;        /* INCOMPAT_ENCRYPT */
	int encrypt_2015_feature;   /* E4_FEATURE_INCOMPAT_ENCRYPT_2015 */
	int casefold_feature;
	int stable_inodes_feature;
	uint8_t encryption_level;   /* s_encryption_level */
	uint8_t encrypt_algos[4];   /* s_encrypt_algos */
	uint8_t encrypt_pw_salt[16];
	char last_mounted[64];      /* s_last_mounted: where the kernel last
				     * mounted it (bytes as stored, not
				     * NUL-terminated when all 64 are used) */
	size_t last_mounted_len;    /* up to the first NUL */
	uint64_t max_file_size;     /* s_maxbytes as ext4 computes it */
	uint64_t max_bitmap_file_size; /* s_bitmap_maxbytes (no extents) */
	uint64_t declared_size;     /* s_blocks_count x block size */
	uint64_t source_size;       /* bytes the image holds of the volume;
				     * below declared_size: the image is cut
				     * short (e4_fs_shortfall) */
};
void e4_fs_get_info(const struct e4_fs *fs, struct e4_fs_info *out);

/* The bytes of the filesystem its source holds: s_blocks_count x block
 * size, or the source's (volume's) size when smaller.  What the files of
 * a sound filesystem can hold at most. */
uint64_t e4_fs_image_size(const struct e4_fs *fs);

/* How many bytes of what the superblock declares (s_blocks_count x block
 * size) lie past the end of the image, 0 when none; what, when not NULL,
 * then says so in words (the bytes held and declared, the blocks). */
uint64_t e4_fs_shortfall(const struct e4_fs_info *info, char *what, size_t len);

/* Whether the image's source may be read from several threads at once
 * (a file or block device: yes), so that file handles (file.h) may be
 * read in other threads than the filesystem's. */
int e4_fs_concurrent_reads(const struct e4_fs *fs);

/* The incompat feature that marks a filesystem in the 2015 format, written
 * by kernel-patches/ (spec section 11.1).  Not allocated upstream; libext2fs
 * does not know it, so e4_fs_open accepts it as the only unknown one. */
#define E4_FEATURE_INCOMPAT_ENCRYPT_2015 0x80000000u

/* The name format in use: the option, else the encrypt_2015 feature, else
 * decided once by reading the inode tables in order up to the first v1
 * encrypted directory that decides: an htree whose leaf hashes fit one
 * format's hash only, or (over all directories read) two stored lengths
 * that Linux 6.1's padding cannot produce (the 2015 format).  Nothing
 * decisive: Linux 6.1.  e4_fs_name_format_why says which of these it was. */
enum e4_name_format e4_fs_name_format(struct e4_fs *fs);
const char *e4_fs_name_format_why(struct e4_fs *fs);

/* ext4's directory hash of a name, versions 0 to 5 (ext2fs_dirhash2's
 * numbering: +3 for unsigned char), as the kernel finishes it
 * (fs/ext4/hash.c: __ext4fs_dirhash): bit 0 cleared and the end-of-
 * directory value 0xfffffffe replaced by 0xfffffffc, which e2fsprogs does
 * not do.  0, or -1 when the name cannot be hashed. */
int e4_dirhash(int version, const uint8_t *name, size_t len,
	       const uint32_t seed[4], uint32_t *hash, uint32_t *minor);

/* The htree hash of a stored name (low bit clear) under a format: over
 * the ciphertext (Linux 6.1) or its 2015 no-key name.  version is the
 * dx_root's, plus 3 for unsigned-char filesystems (ext2fs_dirhash2).
 * 0, or -1 when the name cannot be hashed. */
int e4_htree_entry_hash(int version, const uint32_t seed[4],
			enum e4_name_format format, const uint8_t *name,
			unsigned int len, uint32_t *hash);

/* Every inode that is in use and has the encrypt flag or a context, in
 * inode order; built by one scan of the inode tables on first use. */
struct e4_enc_inode {
	uint32_t ino;
	uint16_t mode;
	int flagged;                /* EXT4_ENCRYPT_FL */
	enum e4_status ctx_status;  /* E4_OK, E4_NOT_FOUND (no context),
				     * E4_CORRUPT, E4_UNRECOGNIZED, E4_IO */
	const char *why;            /* static string when not E4_OK */
	struct e4_context ctx;
};
enum e4_status e4_fs_encrypted_inodes(struct e4_fs *fs,
				      const struct e4_enc_inode **v,
				      size_t *n, size_t *in_use);

/* How a policy (its key descriptor or identifier) is opened. */
struct e4_policy_key {
	int open;            /* a key is trusted for it */
	long key;            /* index in the keystore, or -1 (dummy key) */
	const char *how;     /* how it was matched, or why it stays locked */
};
/* Find (once per policy) the key that opens ctx's policy: a v2 identifier
 * equal to the key's; a v1 descriptor equal to a key's e4crypt descriptor
 * or, failing that, any key, trusted only when the names and symlink
 * targets under the policy decrypt with it (the image may carry the
 * descriptor of a key without having been encrypted with it).
 * E4_NO_KEY when no key opens it.  Nothing is reported. */
enum e4_status e4_fs_policy_key(struct e4_fs *fs, const struct e4_context *ctx,
				struct e4_policy_key *out);
/* Has any inode's lookup used key i? */
int e4_fs_key_used(const struct e4_fs *fs, size_t i);

/* The cipher of inode ino (context ctx) for contents or names; the caller
 * frees it.  E4_NO_KEY when its policy stays locked.  The first use of a
 * policy reports which key opens it (info) or that none does (an error,
 * or a note when listing).  out NULL: only whether the policy is open. */
enum e4_status e4_fs_inode_cipher(struct e4_fs *fs, uint32_t ino,
				  const struct e4_context *ctx, enum e4_key_use use,
				  struct e4_cipher **out);

#endif

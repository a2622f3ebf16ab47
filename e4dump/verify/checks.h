/* Every check of e4dump verify, in one table (as e2fsck's problem.h):
 * its stable id and what it finds.  tests/verify/README.md lists the same
 * ids, and the verify.ids test holds them equal. */
#ifndef E4DUMP_VERIFY_CHECKS_H
#define E4DUMP_VERIFY_CHECKS_H

#define VERIFY_CHECKS(X)                                                       \
	X(SB_ENCRYPT_FEATURE, "sb.encrypt_feature",                            \
	  "some inode has the encrypt flag but the encrypt feature is not set") \
	X(SB_ENCRYPTION_LEVEL, "sb.encryption_level",                          \
	  "s_encryption_level is not 0")                                       \
	X(CONTEXT_MISSING, "context.missing",                                  \
	  "encrypt flag without a context xattr")                              \
	X(CONTEXT_UNFLAGGED, "context.unflagged",                              \
	  "a context xattr on an inode without the encrypt flag")              \
	X(CONTEXT_CORRUPT, "context.corrupt",                                  \
	  "context of the wrong length, reserved bytes set, xattrs unreadable") \
	X(CONTEXT_UNRECOGNIZED, "context.unrecognized",                        \
	  "unknown version, mode pair or flag bits")                           \
	X(CONTEXT_FLAGS, "context.flags",                                      \
	  "known flags invalid together")                                      \
	X(CONTEXT_NONCE_REUSE, "context.nonce_reuse",                          \
	  "two inodes with the same nonce")                                    \
	X(POLICY_DIFFERS, "policy.differs",                                    \
	  "an encrypted entry whose policy differs from its directory's")      \
	X(DIR_UNENCRYPTED_ENTRY, "dir.unencrypted_entry",                      \
	  "an unencrypted file, directory or symlink in an encrypted directory") \
	X(ROOT_ENCRYPTED, "root.encrypted", "the root directory is encrypted") \
	X(LOST_FOUND_ENCRYPTED, "lost_found.encrypted",                        \
	  "/lost+found is encrypted")                                          \
	X(NAME_TOO_SHORT, "name.too_short",                                    \
	  "stored name shorter than 16 bytes")                                 \
	X(NAME_TOO_LONG, "name.too_long",                                      \
	  "stored name longer than 255 bytes")                                 \
	X(NAME_PADDING, "name.padding",                                        \
	  "stored length breaks the directory's length rule")                  \
	X(NAME_DECRYPT, "name.decrypt",                                        \
	  "the name does not decrypt to a valid name")                         \
	X(NAME_SLASH, "name.slash", "the name decrypts to a name with '/'")    \
	X(NAME_DUPLICATE, "name.duplicate",                                    \
	  "two entries of one directory with the same name")                   \
	X(DIRENT_BAD_INODE, "dirent.bad_inode",                                \
	  "an entry points to an inode not in use or unreadable")              \
	X(DIR_CORRUPT, "dir.corrupt",                                          \
	  "a directory block, or its block map, is invalid or unreadable")     \
	X(TREE_CYCLE, "tree.cycle",                                            \
	  "an entry leads to a directory that is its own ancestor")            \
	X(TREE_MULTIPLY_LINKED, "tree.multiply_linked",                        \
	  "a directory reached by a second path")                              \
	X(INODE_SIZE, "inode.size",                                            \
	  "a file larger than ext4 allows, a directory size not a multiple of the block size") \
	X(INODE_BLOCK_MAP, "inode.block_map",                                  \
	  "an extent tree or block map invalid, or sharing a block with another inode") \
	X(BLOCK_MULTIPLY_CLAIMED, "block.multiply_claimed",                    \
	  "a data block claimed twice: by one file, two inodes, or a file and metadata") \
	X(FILE_BLOCKS_PAST_EOF, "file.blocks_past_eof",                        \
	  "initialized blocks wholly past i_size")                             \
	X(SYMLINK_HEADER, "symlink.header",                                    \
	  "encrypted symlink size or header length out of bounds")             \
	X(SYMLINK_DECRYPT, "symlink.decrypt",                                  \
	  "the target does not decrypt to a valid path")                       \
	X(SYMLINK_PADDING, "symlink.padding",                                  \
	  "the target's ciphertext length breaks the length rule")             \
	X(INODE_SPECIAL_ENCRYPTED, "inode.special_encrypted",                  \
	  "a device node, FIFO or socket with the encrypt flag or a context")  \
	X(HTREE_HASH, "htree.hash",                                            \
	  "an htree leaf entry outside its leaf's hash range")                 \
	X(HTREE_CORRUPT, "htree.corrupt", "dx_root or dx_node invalid")        \
	X(DIRENT_CASEFOLD_HASH, "dirent.casefold_hash",                        \
	  "a stored casefold hash pair missing or wrong")                      \
	X(KEY_UNUSED, "key.unused", "a supplied key opens no policy")          \
	X(IMAGE_SHORT, "image.short",                                          \
	  "the image ends before what its filesystem or partition table declares") \
	X(EVIDENCE_HASH, "evidence.hash",                                      \
	  "--evidence: the media hash an E01 stores differs from its data, or the data cannot be read")

enum check_id {
#define X(name, id, what) CHECK_##name,
	VERIFY_CHECKS(X)
#undef X
	CHECK_COUNT
};

struct check_def {
	const char *id;
	const char *what;
};

extern const struct check_def check_defs[CHECK_COUNT];

#endif

/* Directories: one reader for every command.  A listing holds the entries
 * of one directory (without "." and "..") with the names to show:
 * plaintext, decrypted, or the no-key name Linux shows without the key;
 * names live in one arena, about 40 bytes per entry beyond the names. */
#ifndef E4_DIR_H
#define E4_DIR_H

#include <stddef.h>
#include <stdint.h>
#include "inode.h"

enum e4_name_state {
	E4_NAME_PLAIN,      /* unencrypted directory */
	E4_NAME_DECRYPTED,
	E4_NAME_NOKEY,      /* locked: the no-key name */
	E4_NAME_BAD,        /* did not decrypt to a valid name: no-key name */
};

/* Why a name is E4_NAME_BAD. */
enum e4_name_problem {
	E4_NAME_OK = 0,
	E4_NAME_TOO_SHORT,  /* ciphertext shorter than 16 bytes */
	E4_NAME_INVALID,    /* empty, or non-zero bytes after its NUL */
	E4_NAME_SLASH,      /* decrypts to a name with '/' */
	E4_NAME_UNTRUSTED,  /* others of the directory do not decrypt */
};

struct e4_entry {
	uint32_t ino;
	uint8_t file_type;          /* EXT2_FT_* from the entry */
	enum e4_name_state state;
	enum e4_name_problem problem;
	const uint8_t *name;        /* shown name (not NUL-terminated) */
	size_t name_len;
	const uint8_t *raw;         /* stored bytes */
	size_t raw_len;
	const uint8_t *plain;       /* decrypted bytes, also of a bad name,
				     * or NULL (not decrypted) */
	size_t plain_len;
	unsigned int name_len_field; /* on-disk 16-bit name_len (no filetype) */
	int has_hash;               /* casefold + encrypt: pair stored */
	uint32_t hash, minor_hash;
	unsigned int dup;           /* 0, or k: the k-th repeat of a name
				     * shown earlier in this listing */
};

struct e4_dir;

/* Flags of e4_dir_list. */
#define E4_LIST_KEEP_UNSAFE 1 /* a name with '/' or NUL whose own zero
			       * padding shows the key is right is kept as
			       * E4_NAME_DECRYPTED (extract escapes it) */
#define E4_LIST_UNSORTED 2    /* keep the on-disk order */
#define E4_LIST_QUIET 4       /* do not report problems of single entries
			       * (names, duplicates): a lookup passing by */

/* List directory in (path names it in messages).  Problems with single
 * entries are reported and the entries kept; a block that cannot be read
 * or parsed is reported and the rest read.  E4_NOT_DIR, E4_LIMIT (more
 * than max_dir_entries), E4_CORRUPT or E4_IO (all reported) when nothing
 * can be listed.  The listing is sorted by shown name (bytes). */
enum e4_status e4_dir_list(struct e4_fs *fs, const struct e4_inode *in,
			   const char *path, unsigned int flags,
			   struct e4_dir **out);
void e4_dir_free(struct e4_dir *d);

size_t e4_dir_count(const struct e4_dir *d);
/* Entry i (< e4_dir_count): pointers into the listing, valid until it is
 * freed. */
void e4_dir_get(const struct e4_dir *d, size_t i, struct e4_entry *out);
/* Sort indices of entries of d (an E4_LIST_UNSORTED listing) into the
 * order a sorted listing has them in: some entries in listing order
 * without sorting them all. */
void e4_dir_sort_indices(const struct e4_dir *d, size_t *idx, size_t n);
/* Words for a name problem. */
const char *e4_name_problem_text(enum e4_name_problem p);

struct e4_dir_facts {
	uint32_t ino;
	int encrypted;
	int have_key;       /* names were decrypted */
	int broken;         /* encrypted, but its context is missing or bad */
	int casefolded;
	int indexed;        /* htree */
	int damaged;        /* some block could not be read or parsed */
	struct e4_context ctx;  /* when encrypted and not broken */
};
const struct e4_dir_facts *e4_dir_facts(const struct e4_dir *d);

/* The no-key names of the listing's entries even where they decrypted
 * (for lookups by no-key name with the key): name i into out (at least
 * E4_NOKEY_NAME_MAX + 1 bytes), NUL-terminated. */
void e4_dir_nokey_name(struct e4_fs *fs, const struct e4_dir *d, size_t i,
		       char *out);

/* The entry named name (name_len bytes): an exact match; else in a
 * casefolded directory one equal after casefolding, as the kernel finds
 * it; else with the key, the no-key name it shows without.  Returns its
 * index or e4_dir_count(d). */
size_t e4_dir_find(struct e4_fs *fs, const struct e4_dir *d,
		   const uint8_t *name, size_t name_len);

/* Resolve a '/'-separated path of shown names from the root ("." names
 * are skipped), or from inode N when it starts with "<N>" (debugfs's
 * syntax: "<12>", "<12>/name"; an entry named "<12>" in the root is
 * "/<12>").  E4_NOT_FOUND / E4_NOT_DIR (reported) when it does not. */
enum e4_status e4_path_lookup(struct e4_fs *fs, const char *path,
			      uint32_t *ino);

#endif

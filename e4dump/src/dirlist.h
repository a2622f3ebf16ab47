/* Directory listing with decrypted (or no-key) names, and path lookup. */
#ifndef E4DUMP_DIRLIST_H
#define E4DUMP_DIRLIST_H

#include <stddef.h>
#include "keyring.h"

enum name_state {
	NAME_PLAIN,     /* unencrypted directory */
	NAME_DECRYPTED,
	NAME_NOKEY,     /* no key: the Linux 6.1 no-key name */
	NAME_BAD,       /* did not decrypt to a valid name: no-key name shown */
};

struct dent {
	ext2_ino_t ino;
	uint8_t ftype;                /* EXT2_FT_* from the dirent */
	enum name_state state;
	size_t raw_len;
	uint8_t raw[256];             /* as stored */
	size_t name_len;
	char name[256];               /* shown name, NUL-terminated */
	const char *problem;          /* why NAME_BAD */
	int has_hash;                 /* casefold + encrypt: the pair stored */
	uint32_t hash, minor_hash;    /* after the name (casefold_hash.h) */
};

struct dir_listing {
	ext2_ino_t dir;
	int encrypted;
	int have_key;                 /* names decrypted */
	int broken;                   /* context missing, corrupt or unusable */
	int casefolded;               /* EXT4_CASEFOLD_FL (lookups ignore case) */
	struct e4_context ctx;
	size_t n;
	struct dent *v;               /* sorted by name */
};

/* List a directory (without "." and "..").  path is for messages.
 * Problems with single names are reported and the entry is kept with a
 * no-key name.  Returns -1 (after an error naming the path) when the
 * directory cannot be read at all. */
int dir_list(struct keyring *kr, ext2_ino_t dir, const char *path,
	     struct dir_listing *out);
void dir_listing_free(struct dir_listing *l);

/* Set by extract: a name that decrypts with '/' or NUL in it, and whose
 * own zero padding shows the key is right, is NAME_DECRYPTED (name_len up
 * to its last non-NUL byte) instead of NAME_BAD. */
extern int dir_keep_unsafe_names;

/* Give each of the n entries of directory dir (its inode in *inode) the
 * no-key name readdir shows for it (d->raw -> d->name, d->name_len), in
 * format (FORMAT_2015, else Linux 6.1's with its htree hash pair; in a
 * casefolded encrypted directory the pair stored in the entry: set
 * d->has_hash, d->hash, d->minor_hash with casefold_stored_hash(), else
 * the pair is 0). */
void dir_nokey_names(struct img *im, ext2_ino_t dir,
		     struct ext2_inode_large *inode, enum name_format format,
		     struct dent *v, size_t n);

/* Resolve a '/'-separated path of shown names from the root (in an
 * encrypted directory whose names are decrypted, the no-key name it shows
 * without the key is accepted too); in a
 * casefolded directory a name that matches no entry exactly matches one
 * that is equal after casefolding, as in the kernel.  -1 after printing an
 * error. */
int path_lookup(struct keyring *kr, const char *path, ext2_ino_t *ino);

#endif

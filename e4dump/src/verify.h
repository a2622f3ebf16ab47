/* e4dump verify: shared state of the conformance checker and its findings.
 * Every check id is listed in tests/verify/README.md. */
#ifndef E4DUMP_VERIFY_H
#define E4DUMP_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "dirlist.h"

struct finding {
	ext2_ino_t ino;
	char *path;        /* NULL: the inode's path from the tree walk */
	const char *id;    /* stable check id, e.g. "name.padding" */
	char *message;
	size_t seq;        /* order of discovery, for a stable sort */
};

/* A stored name whose length breaks the 6.1 or the 2015 rule; judged once
 * the image's format is known. */
struct len_candidate {
	ext2_ino_t ino;
	char *path;
	unsigned int stored, pad;
	int plain_len;     /* decrypted length, -1 without a key */
	int bad61, bad2015;
};

/* One directory entry as the walk collected it. */
struct ventry {
	struct dent *d;      /* raw name; d->name = the no-key name */
	unsigned int len_field; /* the on-disk name_len field (16 bits) */
	int dec;             /* 1: decrypted to a valid name */
	int hash_missing;    /* casefold + encrypt: no room for the hash pair */
	size_t plain_len;
	uint8_t plain[256];
};

struct verify {
	struct img *im;
	struct keyring *kr;
	int json;
	enum name_format format;  /* --format, or decided by lengths */
	uint32_t ninodes;         /* s_inodes_count */
	char **path;              /* [ino]: first path found by the walk */
	uint32_t *parent;         /* [ino]: parent directory in the walk */
	struct finding *v;
	size_t n, cap;
	struct len_candidate *lc;
	size_t nlc, caplc;
	size_t dirs, entries, inodes;
	int nomem;
};

/* Record a finding; path NULL means the inode's walked path. */
void vfind(struct verify *v, ext2_ino_t ino, const char *path, const char *id,
	   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void vlen_candidate(struct verify *v, ext2_ino_t ino, const char *path,
		    unsigned int stored, unsigned int pad, int plain_len);
/* --format auto: decide from the stored name lengths of the image. */
void verify_decide_format(struct verify *v);
/* Report the length candidates that break the format's rule. */
void verify_judge_lengths(struct verify *v);
/* Print the findings (sorted by inode) and the summary; free them. */
void verify_print(struct verify *v);
void verify_free(struct verify *v);

/* The tree from the root: entries, names, policies, cycles, htrees. */
void verify_tree(struct verify *v);
/* An entry of an encrypted directory (dctx: the directory's context when
 * dctx_ok; c: its names cipher, or NULL without a key; child: the entry's
 * inode when child_ok).  Sets e->dec when the name decrypted. */
void verify_encrypted_entry(struct verify *v, struct ventry *e,
			    const char *path, const struct e4_context *dctx,
			    int dctx_ok, struct e4_cipher *c,
			    const struct ext2_inode_large *child, int child_ok);
/* Entries of one directory with the same (decrypted or stored) name. */
void verify_duplicates(struct verify *v, struct ventry *e, size_t n,
		       char **paths, int encrypted);
/* One indexed directory's dx blocks and the hashes of its leaf entries. */
void verify_htree(struct verify *v, ext2_ino_t dir,
		  struct ext2_inode_large *inode, int format2015);
/* Every in-use inode: contexts, nonces, sizes, blocks, symlink headers. */
int verify_inodes(struct verify *v);

const char *verify_path(struct verify *v, ext2_ino_t ino);

#endif

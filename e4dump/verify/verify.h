/* e4dump verify: shared state of the conformance checker and its findings.
 * The checks are listed in checks.h. */
#ifndef E4DUMP_VERIFY_H
#define E4DUMP_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "blockset.h"
#include "checks.h"
#include "dir.h"
#include "fs_ext2.h"
#include "progress.h"
#include "report.h"
#include <json-c/json.h>

/* Paths are kept as a tree of the directories walked: a node per
 * directory holds its (escaped) name and its parent, and lives while the
 * walk is in it or a finding names it.  So memory follows the depth and
 * the findings, never the length of every path. */
struct pnode {
	struct pnode *parent;   /* NULL for the root */
	size_t refs;
	size_t len;
	char name[];            /* escaped; "" for the root */
};

/* A place: an entry name in a directory, or the directory itself (name
 * NULL). */
struct vref {
	struct pnode *dir;
	const char *name;
};

struct finding {
	uint32_t ino;
	struct pnode *dir;  /* NULL: the first path the walk finds for ino */
	char *name;
	enum check_id check;
	char *message;
	size_t seq;         /* order of discovery, for a stable sort */
};

/* Where the walk first met an inode that has a finding without a place. */
struct path_of {
	uint32_t ino;
	struct pnode *dir;
	char *name;
	int seen;
};

struct verify {
	struct e4_fs *fs;
	struct e4_fs_info info;     /* e4_fs_get_info */
	const struct e4_keystore *keys;
	struct report *r;
	int json;
	enum e4_name_format format;
	uint32_t ninodes;
	struct pnode *root, *cur;   /* the root; the directory being walked */
	struct finding *v;
	size_t n, cap;
	struct path_of *paths;      /* open addressing on ino */
	size_t npaths, cappaths;
	size_t dirs, entries, inodes;
	/* What the inode scan saw, so the walk need not read every entry's
	 * inode again: per block group, 2 bits per inode (inodes.c). */
	uint8_t **kinds;
	size_t nkind_groups;
	int nomem;
	struct claims *claims;      /* blocks claimed (claims.c) */
	int mute_maps;              /* 1: drop block map problems (reported
				     * elsewhere); 2: drop every problem */
	struct progress progress;   /* entries walked, on a terminal */
	json_object *evidence;      /* --evidence --json: the hashes, for the
				     * summary (evidence.c) */
};

/* What an entry's inode is, from the index or read (tree.c). */
struct child_facts {
	uint16_t mode;
	int encrypted;              /* EXT4_ENCRYPT_FL */
	enum e4_status ctx_status;  /* of e4_inode_context */
	struct e4_context ctx;
};

struct pnode *pnode_new(struct pnode *parent, const char *name, size_t len);
struct pnode *pnode_ref(struct pnode *p);
void pnode_unref(struct pnode *p);

/* Record a finding at a place; at NULL means the inode's walked path. */
void vfind(struct verify *v, enum check_id check, uint32_t ino,
	   const struct vref *at, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The tree walk met ino at this place: keep it if a finding needs it. */
void verify_saw_path(struct verify *v, uint32_t ino, const struct vref *at);
/* Print the findings (sorted by inode) and the summary. */
void verify_print(struct verify *v);
/* --evidence: the whole media of path hashed against the hashes its
 * container stores (evidence.c); quiet: no progress.  0, or -1: fatal
 * (reported). */
int verify_evidence(struct verify *v, const char *path, int quiet);
void verify_free(struct verify *v);

/* The tree from the root: entries, names, policies, cycles, htrees. */
void verify_tree(struct verify *v);
/* The name of one entry of an encrypted directory (dctx: its context
 * when dctx_ok). */
void verify_encrypted_entry(struct verify *v, const struct e4_entry *e,
			    const struct vref *at, const struct e4_context *dctx,
			    int dctx_ok, int have_key,
			    const struct child_facts *child);
/* Entries of one directory (dir) with the same (decrypted or stored)
 * name. */
void verify_duplicates(struct verify *v, const struct e4_dir *d,
		       struct pnode *dir);
/* Entry i of listing d as a place in dir, its name malloc'd (the caller
 * frees it); made only for a finding.  -1 (v->nomem) out of memory. */
int verify_entry_ref(struct verify *v, const struct e4_dir *d, size_t i,
		     struct pnode *dir, struct vref *at);
/* One indexed directory's dx blocks and the hashes of its leaf entries. */
void verify_htree(struct verify *v, const struct e4_inode *dir,
		  const struct vref *at);
/* Every in-use inode: contexts, nonces, sizes, blocks, symlink headers. */
int verify_inodes(struct verify *v);
/* Blocks claimed more than once (claims.c): each in-use inode of the
 * scan, then (after the scan) the findings, and the memory freed. */
void claims_inode(struct verify *v, const struct e4_inode *in);
void claims_finish(struct verify *v);
/* After verify_inodes: 1 when the scan saw ino in use and not a
 * directory; the entry of the index for ino, or NULL. */
int verify_known_file(struct verify *v, uint32_t ino);
const struct e4_enc_inode *verify_enc_inode(struct verify *v, uint32_t ino);

#endif

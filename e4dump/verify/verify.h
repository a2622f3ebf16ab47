/* e4dump verify: shared state of the conformance checker and its findings.
 * The checks are listed in checks.h. */
#ifndef E4DUMP_VERIFY_H
#define E4DUMP_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "blockset.h"
#include "checks.h"
#include "dir.h"
#include "fs_private.h"
#include "report.h"

struct finding {
	uint32_t ino;
	char *path;         /* NULL: the first path the walk finds for ino */
	enum check_id check;
	char *message;
	size_t seq;         /* order of discovery, for a stable sort */
};

/* Paths of inodes that have a finding without one. */
struct path_of {
	uint32_t ino;
	char *path;
};

struct verify {
	struct e4_fs *fs;
	const struct e4_keystore *keys;
	struct report *r;
	int json;
	enum e4_name_format format;
	uint32_t ninodes;
	struct finding *v;
	size_t n, cap;
	struct path_of *paths;      /* open addressing on ino */
	size_t npaths, cappaths;
	size_t dirs, entries, inodes;
	int nomem;
};

/* Record a finding; path NULL means the inode's walked path. */
void vfind(struct verify *v, enum check_id check, uint32_t ino,
	   const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The tree walk met ino at path: keep it if a finding needs it. */
void verify_saw_path(struct verify *v, uint32_t ino, const char *path);
/* Print the findings (sorted by inode) and the summary. */
void verify_print(struct verify *v);
void verify_free(struct verify *v);

/* The tree from the root: entries, names, policies, cycles, htrees. */
void verify_tree(struct verify *v);
/* The names of one encrypted directory (dctx: its context when dctx_ok). */
void verify_encrypted_entry(struct verify *v, const struct e4_entry *e,
			    const char *path, const struct e4_context *dctx,
			    int dctx_ok, int have_key,
			    const struct e4_inode *child);
/* Entries of one directory with the same (decrypted or stored) name. */
void verify_duplicates(struct verify *v, const struct e4_dir *d,
		       char **paths);
/* One indexed directory's dx blocks and the hashes of its leaf entries. */
void verify_htree(struct verify *v, const struct e4_inode *dir,
		  const char *path);
/* Every in-use inode: contexts, nonces, sizes, blocks, symlink headers. */
int verify_inodes(struct verify *v);

#endif

/* The tree walker every command uses: depth first, entries of a directory
 * in listing order.  It owns the depth cap, cycle and second-link
 * detection (each directory inode is entered at most once per walk), path
 * building and memory: one listing per level of the current path. */
#ifndef E4_WALK_H
#define E4_WALK_H

#include <stddef.h>
#include <stdint.h>
#include "dir.h"

/* What a visitor returns. */
enum e4_walk_action {
	E4_WALK_CONTINUE = 0, /* go on (into a directory: enter it) */
	E4_WALK_SKIP,         /* do not enter this directory */
	E4_WALK_STOP,         /* end the walk */
};

struct e4_walk_node {
	const char *path;             /* display path from the start */
	size_t path_len;
	const char *rel;              /* display path relative to the start
				       * ("" for the start itself) */
	unsigned int depth;           /* start: 0 */
	uint32_t ino;
	const struct e4_entry *entry; /* NULL for the start */
	const struct e4_dir_facts *parent; /* the listing it is in, or NULL */
	const struct e4_inode *inode; /* NULL when it could not be read, or
				       * was not read (inode_skipped) */
	int inode_skipped;            /* skip_inode() said it need not be */
	enum e4_status inode_status;  /* when the walk read it and inode is
				       * NULL: E4_NOT_FOUND (not in use) or
				       * the read's error; else E4_OK */
	void *parent_data;            /* what enter_dir gave its directory */
};

struct e4_walk_visitor {
	/* Each entry (and the start), before a directory is entered. */
	enum e4_walk_action (*entry)(void *arg, const struct e4_walk_node *n);
	/* A directory is about to be listed and entered: *data is given to
	 * its entries as parent_data.  May be NULL. */
	enum e4_walk_action (*enter)(void *arg, const struct e4_walk_node *n,
				     const struct e4_dir *listing, void **data);
	/* After its entries (the listing is freed after). */
	void (*leave)(void *arg, const struct e4_walk_node *n,
		      const struct e4_dir *listing, void *data);
	/* Optional, for a caller that has scanned the inode tables: non-zero
	 * when the entry's inode ino is known to be in use and not a
	 * directory, so that the walk need not read it.  Reading every
	 * entry's inode in the listing's (hash) order costs more than the
	 * scan itself. */
	int (*skip_inode)(void *arg, uint32_t ino);
};

struct e4_walk_options {
	int recursive;      /* 0: the start and, for a directory, its entries */
	int need_inodes;    /* read every entry's inode (recursive walks read
			     * them anyway: the mode decides what to enter) */
	unsigned int list_flags; /* for e4_dir_list */
	int prescan;        /* a recursive walk that needs only directories'
			     * inodes: scan the inode tables first (in
			     * order, a bounded buffer): an entry whose inode
			     * the scan decoded in use and not a directory is
			     * counted but not read nor visited; the rest
			     * are visited in listing order, sorted alone
			     * (the listings given to enter and leave are
			     * E4_LIST_UNSORTED).  What is entered is
			     * what a walk reading every inode enters: the
			     * mode comes from the same bytes and decoder.
			     * The scan reports inodes no entry names too. */
};

struct e4_walk_stats {
	size_t dirs, entries;
	size_t inodes_read; /* entries' inodes read (not the start's) */
	size_t problems;    /* entries or directories with a reported problem */
};

/* Walk from inode start (shown as start_path).  A directory already
 * entered in this walk (a cycle, or a second link, which ext4 cannot
 * have) is reported and not entered again; so is one deeper than
 * max_depth.  Returns E4_OK, E4_STOPPED, or the start's error. */
enum e4_status e4_walk(struct e4_fs *fs, uint32_t start, const char *start_path,
		       const struct e4_walk_options *o,
		       const struct e4_walk_visitor *v, void *arg,
		       struct e4_walk_stats *stats);

#endif

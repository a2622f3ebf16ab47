/* e4dump QEMU guest, scenario commands: deletions for the undelete scenarios
 * (vm/README.md, "Deletions"): sync, unlink, rmtree, churn, sparse.  unlink
 * and rmtree record where each removed inode's blocks were (FS_IOC_FIEMAP,
 * with the key present) before removing it, so that the host knows, without
 * e4dump, which blocks a deleted file had and, with the final block bitmap,
 * which of them the kernel allocated again. */
#include "guest.h"

/* sync: syncfs(/mnt), which commits the running journal transaction.
 * Records "sync". */
void cmd_sync(char **tok, int ntok, int lineno)
{
	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: sync", lineno);
	sync_mnt();
	man_add("sync\n");
}

/* "extents PATHHEX INO RUNS": RUNS = LBLK:PBLK:LEN[:u],... in filesystem
 * blocks (":u" unwritten), "-" for none, "?" for a symlink (no fd for the
 * ioctl).  Extents past i_size (fallocate KEEP_SIZE) are listed too. */
static void record_extents(const char *rel, const struct stat *st)
{
	char p[4200];
	struct statfs sfs;
	uint64_t next = 0, bs;
	size_t runs = 0;
	int fd, last = 0;

	abs_path(p, sizeof(p), rel);
	man_add("extents ");
	man_hex(rel, strlen(rel));
	man_add(" %llu ", (unsigned long long)st->st_ino);
	if (S_ISLNK(st->st_mode)) {
		man_add("?\n");
		return;
	}
	if (statfs(MNT, &sfs) < 0)
		FAILE("statfs " MNT);
	bs = (uint64_t)sfs.f_bsize;
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (S_ISDIR(st->st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		FAILE("open %s", p);
	while (!last) {
		union {
			struct fiemap fm;
			unsigned char space[sizeof(struct fiemap) + 64 * sizeof(struct fiemap_extent)];
		} u;
		unsigned i;

		memset(&u, 0, sizeof(u));
		u.fm.fm_start = next;
		u.fm.fm_length = FIEMAP_MAX_OFFSET - next;
		u.fm.fm_flags = FIEMAP_FLAG_SYNC;
		u.fm.fm_extent_count = 64;
		if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) < 0)
			FAILE("FS_IOC_FIEMAP %s", p);
		if (u.fm.fm_mapped_extents == 0)
			break;
		for (i = 0; i < u.fm.fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &u.fm.fm_extents[i];

			if (x->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
					   FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED))
				fail("%s: extent with flags 0x%x (not on disk or not block-aligned)", p,
				     x->fe_flags);
			if (x->fe_logical % bs || x->fe_physical % bs || x->fe_length % bs)
				fail("%s: extent not in whole blocks", p);
			man_add("%s%llu:%llu:%llu%s", runs++ ? "," : "",
				(unsigned long long)(x->fe_logical / bs),
				(unsigned long long)(x->fe_physical / bs),
				(unsigned long long)(x->fe_length / bs),
				x->fe_flags & FIEMAP_EXTENT_UNWRITTEN ? ":u" : "");
			next = x->fe_logical + x->fe_length;
			if (x->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
		}
	}
	close(fd);
	man_add("%s\n", runs ? "" : "-");
}

/* the manifest entry of REL, which must be there and not removed yet */
static struct entry *live_entry(const char *rel, int lineno)
{
	struct entry *e = find_entry(rel);

	if (!e)
		fail("line %d: %s is not in the manifest", lineno, rel);
	return e;
}

static void removed(struct entry *e)
{
	man_add("removed ");
	man_hex(e->rel, strlen(e->rel));
	man_add("\n");
	e->gone = 1;
}

/* record, then unlink (rmdir) one entry of the manifest */
static void remove_one(const char *rel, int lineno)
{
	struct entry *e = live_entry(rel, lineno);
	char p[4200];
	struct stat st;

	abs_path(p, sizeof(p), rel);
	if (lstat(p, &st) < 0)
		FAILE("line %d: lstat %s", lineno, p);
	if ((e->type == 'd') != !!S_ISDIR(st.st_mode))
		fail("line %d: %s: the manifest says type %c", lineno, p, e->type);
	record_extents(rel, &st);
	if ((S_ISDIR(st.st_mode) ? rmdir(p) : unlink(p)) < 0)
		FAILE("line %d: remove %s", lineno, p);
	removed(e);
}

/* post-order: what is below REL, then REL */
static void remove_tree(const char *rel, int lineno)
{
	size_t n, i;
	struct dent *v = list_dir(rel, &n);
	char sub[4096];

	for (i = 0; i < n; i++) {
		join(sub, sizeof(sub), rel, v[i].name);
		if (v[i].type == DT_DIR)
			remove_tree(sub, lineno);
		else
			remove_one(sub, lineno);
	}
	free_list(v, n);
	remove_one(rel, lineno);
}

/* the parent of REL (a manifest directory) gets its manifest mtime back */
static void restore_parent_mtime(const char *rel)
{
	char parent[4096], p[4200];
	char *slash;
	struct entry *d;

	snprintf(parent, sizeof(parent), "%s", rel);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	d = find_entry(parent);
	if (d && d->type == 'd') {
		struct timespec ts[2] = { { d->mtime, 0 }, { d->mtime, 0 } };

		abs_path(p, sizeof(p), parent);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0)
			FAILE("utimensat %s", p);
	}
}

/* unlink TREE/PATH: a regular file or symlink of the manifest (plaintext
 * path, %HH escapes).  rmtree TREE/PATH: a directory and everything below. */
static void cmd_unlink_rmtree(char **tok, int ntok, int lineno, int tree)
{
	char rel[4096];
	struct entry *e;

	if (ntok != 2)
		fail("line %d: usage: %s TREE/PATH", lineno, tree ? "rmtree" : "unlink");
	parse_plainpath(tok[1], rel, sizeof(rel), lineno);
	e = live_entry(rel, lineno);
	if (!strchr(rel, '/'))
		fail("line %d: %s is a tree root", lineno, rel);
	if ((e->type == 'd') != tree)
		fail("line %d: %s: use %s for type %c", lineno, rel, tree ? "unlink" : "rmtree",
		     e->type);
	if (tree)
		remove_tree(rel, lineno);
	else
		remove_one(rel, lineno);
	restore_parent_mtime(rel);
	say("e4dump-guest: %s %s", tree ? "rmtree" : "unlink", rel);
}

void cmd_unlink(char **tok, int ntok, int lineno)
{
	cmd_unlink_rmtree(tok, ntok, lineno, 0);
}

void cmd_rmtree(char **tok, int ntok, int lineno)
{
	cmd_unlink_rmtree(tok, ntok, lineno, 1);
}

/* churn DIR COUNT SIZE: in /mnt/DIR (made if missing, not in the manifest),
 * COUNT new files of SIZE bytes, each written and fsync'd (one journal
 * transaction each), until ENOSPC at most.  Records "churn DIR COUNT SIZE
 * WRITTEN". */
void cmd_churn(char **tok, int ntok, int lineno)
{
	static int run;
	const char *dir;
	char p[4200], f[4200], *c;
	unsigned long count, size, i;
	int dfd;

	if (ntok != 4)
		fail("line %d: usage: churn DIR COUNT SIZE", lineno);
	dir = parse_relpath(tok[1], lineno);
	count = parse_num(tok[2], 1000000, lineno);
	size = parse_num(tok[3], 1UL << 28, lineno);
	abs_path(p, sizeof(p), dir);
	for (c = p + sizeof(MNT);; c++) { /* mkdir -p */
		if (*c == '/' || !*c) {
			char save = *c;

			*c = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				FAILE("line %d: mkdir %s", lineno, p);
			*c = save;
			if (!save)
				break;
		}
	}
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		FAILE("line %d: open %s", lineno, p);
	run++;
	for (i = 0; i < count; i++) {
		char name[64];
		unsigned char *buf;
		size_t done = 0;
		int fd, e = 0;

		snprintf(name, sizeof(name), "churn%d-%06lu", run, i);
		join(f, sizeof(f), p, name);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			if (errno == ENOSPC)
				break;
			FAILE("line %d: create %s", lineno, f);
		}
		buf = gen_content(fnv1a64(f + sizeof(MNT)), size);
		while (done < size && !e) {
			ssize_t w = write(fd, buf + done, size - done);

			if (w < 0 && errno != EINTR)
				e = errno;
			else if (w > 0)
				done += (size_t)w;
		}
		free(buf);
		if (!e && fsync(fd) < 0)
			e = errno;
		close(fd);
		if (e == ENOSPC || e == EDQUOT) {
			if (unlinkat(dfd, name, 0) < 0)
				FAILE("line %d: unlink %s", lineno, f);
			break;
		}
		if (e)
			fail_errno(e, "line %d: write %s", lineno, f);
	}
	if (fsync(dfd) < 0)
		FAILE("line %d: fsync %s", lineno, p);
	close(dfd);
	man_add("churn %s %lu %lu %lu\n", dir, count, size, i);
	say("e4dump-guest: churn %s: %lu of %lu files of %lu bytes", dir, i, count, size);
}

/* sparse TREE/PATH N: a regular file 0644 with N (1..8) data extents of
 * 4096 bytes at offsets 0, 16384, 32768, ... (the last one 3000 bytes),
 * holes between: with N >= 5 its extent tree has depth 1 (the inode holds
 * 4 extents).  Recorded as an `s` entry. */
void cmd_sparse(char **tok, int ntok, int lineno)
{
	struct extent ext[8];
	const char *rel, *sub;
	size_t first;
	unsigned long n, k;

	if (ntok != 3)
		fail("line %d: usage: sparse TREE/PATH N", lineno);
	rel = parse_relpath(tok[1], lineno);
	n = parse_num(tok[2], 8, lineno);
	if (n < 1)
		fail("line %d: sparse: 1..8 extents", lineno);
	for (k = 0; k < n; k++) {
		ext[k].off = 16384 * k;
		ext[k].len = k + 1 == n ? 3000 : 4096;
	}
	first = late_begin(rel, &sub, lineno);
	mk_sparse(sub, 0644, ext[n - 1].off + ext[n - 1].len, ext, (int)n);
	late_end(first);
}

/* e4dump QEMU guest: the entries of the manifest's trees and their writers
 * (directories, files, sparse files, symlinks, hard links), the tree
 * numbering and mtimes, and the read-back check that writes the entries'
 * manifest lines. */
#include "guest.h"

struct entry *g_ent;
size_t g_nent;
static size_t g_cap_ent;
static char g_tree[256];     /* current tree dir (relative to /mnt) */
static time_t g_time_base;   /* mtimes of the current tree */

static struct entry *new_entry(char type, const char *sub)
{
	struct entry *e;
	char rel[4096];

	if (g_nent == g_cap_ent) {
		g_cap_ent = g_cap_ent ? 2 * g_cap_ent : 256;
		g_ent = realloc(g_ent, g_cap_ent * sizeof(*g_ent));
		if (!g_ent)
			fail("out of memory (entries)");
	}
	if (sub)
		snprintf(rel, sizeof(rel), "%s/%s", g_tree, sub);
	else
		snprintf(rel, sizeof(rel), "%s", g_tree);
	e = &g_ent[g_nent];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->rel = xstrdup(rel);
	e->mtime = g_time_base + 1000 * (time_t)g_nent;
	g_nent++;
	return e;
}

struct entry *mk_dir(const char *sub, unsigned mode)
{
	struct entry *e = new_entry('d', sub);
	char p[4200];

	abs_path(p, sizeof(p), e->rel);
	if (mkdir(p, 0700) < 0)
		FAILE("mkdir %s", p);
	if (chmod(p, mode) < 0)
		FAILE("chmod %s", p);
	e->mode = mode;
	return e;
}

/* the current tree's root, a directory that exists already (made by
 * another program), with the mode it has */
struct entry *adopt_dir(unsigned mode)
{
	struct entry *e = new_entry('d', NULL);

	e->mode = mode;
	return e;
}

static void write_file(struct entry *e, unsigned mode, int nextents)
{
	char p[4200];
	unsigned char *buf;
	int fd, i;

	abs_path(p, sizeof(p), e->rel);
	e->seed = fnv1a64(e->rel);
	e->mode = mode;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		FAILE("create %s", p);
	buf = gen_content(e->seed, e->size);
	if (nextents == 0) {
		write_all(fd, buf, e->size, 0, p);
	} else {
		for (i = 0; i < nextents; i++) {
			if (e->ext[i].off + e->ext[i].len > e->size)
				fail("bad extent for %s", p);
			write_all(fd, buf + e->ext[i].off, e->ext[i].len, e->ext[i].off, p);
		}
		if (ftruncate(fd, e->size) < 0)
			FAILE("ftruncate %s", p);
	}
	free(buf);
	if (fchmod(fd, mode) < 0)
		FAILE("fchmod %s", p);
	if (close(fd) < 0)
		FAILE("close %s", p);
}

struct entry *mk_file(const char *sub, unsigned mode, uint64_t size)
{
	struct entry *e = new_entry('f', sub);

	e->size = size;
	write_file(e, mode, 0);
	return e;
}

struct entry *mk_sparse(const char *sub, unsigned mode, uint64_t size,
			const struct extent *ext, int n)
{
	struct entry *e = new_entry('s', sub);

	if (n > (int)(sizeof(e->ext) / sizeof(e->ext[0])))
		fail("too many extents");
	e->size = size;
	memcpy(e->ext, ext, n * sizeof(*ext));
	e->next = n;
	write_file(e, mode, n);
	return e;
}

/* Preallocate (fallocate FALLOC_FL_KEEP_SIZE: unwritten extents, read as
 * zeros) len bytes at off of a file made by mk_sparse; past i_size too. */
void prealloc(const struct entry *e, off_t off, off_t len)
{
	char p[4200];
	int fd;

	abs_path(p, sizeof(p), e->rel);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s", p);
	if (syscall(SYS_fallocate, fd, 1 /* FALLOC_FL_KEEP_SIZE */, off, len) < 0)
		FAILE("fallocate %s", p);
	if (close(fd) < 0)
		FAILE("close %s", p);
}

struct entry *mk_symlink(const char *sub, const char *target)
{
	struct entry *e = new_entry('l', sub);
	char p[4200];

	abs_path(p, sizeof(p), e->rel);
	if (symlink(target, p) < 0)
		FAILE("symlink %s -> %s", p, target);
	e->target = xstrdup(target);
	e->mode = 0777;
	e->size = strlen(target);
	return e;
}

struct entry *mk_hardlink(const char *sub, const struct entry *orig)
{
	char *orig_rel = xstrdup(orig->rel);
	uint64_t seed = orig->seed, size = orig->size;
	unsigned mode = orig->mode;
	struct entry *e = new_entry('h', sub); /* may move g_ent */
	char p[4200], o[4200];

	abs_path(p, sizeof(p), e->rel);
	abs_path(o, sizeof(o), orig_rel);
	if (link(o, p) < 0)
		FAILE("link %s -> %s", p, o);
	e->target = orig_rel;
	e->seed = seed;
	e->size = size;
	e->mode = mode;
	return e;
}

/* name of exactly len bytes: prefix followed by a deterministic filler */
const char *mkname(char *buf, const char *prefix, size_t len)
{
	static const char fill[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(prefix), i;

	if (n > len || len > 255)
		fail("mkname: bad length %zu for '%s'", len, prefix);
	memcpy(buf, prefix, n);
	for (i = n; i < len; i++)
		buf[i] = fill[i % (sizeof(fill) - 1)];
	buf[len] = '\0';
	return buf;
}

/* Set times (non-directories first, then directories deepest first, the tree
 * root last) and append the manifest lines of the tree. */
void finish_tree(size_t first)
{
	size_t i;
	char p[4200];

	for (i = first; i < g_nent; i++) {
		struct entry *e = &g_ent[i];
		struct timespec ts[2] = { { e->mtime, 0 }, { e->mtime, 0 } };

		if (e->type == 'd')
			continue;
		if (e->type == 'h') /* same inode as its target */
			continue;
		abs_path(p, sizeof(p), e->rel);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0)
			FAILE("utimensat %s", p);
	}
	for (i = g_nent; i-- > first;) {
		struct entry *e = &g_ent[i];
		struct timespec ts[2] = { { e->mtime, 0 }, { e->mtime, 0 } };

		if (e->type != 'd')
			continue;
		abs_path(p, sizeof(p), e->rel);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0)
			FAILE("utimensat %s", p);
	}
	/* Hard links share the inode (and mtime) of their target. */
	for (i = first; i < g_nent; i++) {
		struct entry *e = &g_ent[i];
		size_t j;

		if (e->type != 'h')
			continue;
		for (j = first; j < i; j++)
			if (!strcmp(g_ent[j].rel, e->target))
				e->mtime = g_ent[j].mtime;
	}

	for (i = first; i < g_nent; i++) {
		struct entry *e = &g_ent[i];
		struct stat st;
		unsigned want_fmt;
		int k;

		abs_path(p, sizeof(p), e->rel);
		if (lstat(p, &st) < 0)
			FAILE("lstat %s", p);
		e->ino = (uint64_t)st.st_ino;
		want_fmt = e->type == 'd' ? S_IFDIR : e->type == 'l' ? S_IFLNK : S_IFREG;
		if ((st.st_mode & S_IFMT) != want_fmt)
			fail("%s: wrong file type 0%o", p, st.st_mode & S_IFMT);
		if ((st.st_mode & 07777) != e->mode)
			fail("%s: mode 0%o, wanted 0%o", p, st.st_mode & 07777, e->mode);
		if (e->type != 'd' && (uint64_t)st.st_size != e->size)
			fail("%s: size %lld, wanted %" PRIu64, p, (long long)st.st_size, e->size);
		if (st.st_mtime != e->mtime)
			say("e4dump-guest: note: %s: mtime %lld stored as %lld (clamped by the fs)",
			    p, (long long)e->mtime, (long long)st.st_mtime);
		if (e->type == 'l') {
			char buf[4096];
			ssize_t n = readlink(p, buf, sizeof(buf));

			if (n < 0)
				FAILE("readlink %s", p);
			if ((size_t)n != strlen(e->target) || memcmp(buf, e->target, n))
				fail("%s: symlink target read back differs", p);
		}

		man_add("%c %s ", e->type, g_tree);
		man_hex(e->rel, strlen(e->rel));
		man_add(" %04o ", (unsigned)(st.st_mode & 07777));
		if (e->type == 'd')
			man_add("-");
		else
			man_add("%lld", (long long)st.st_size);
		man_add(" %lld", (long long)st.st_mtime);
		switch (e->type) {
		case 'f':
			man_add(" %016" PRIx64, e->seed);
			break;
		case 's':
			man_add(" %016" PRIx64 " ", e->seed);
			for (k = 0; k < e->next; k++)
				man_add("%s%" PRIu64 ":%" PRIu64, k ? "," : "", e->ext[k].off, e->ext[k].len);
			break;
		case 'h':
			man_add(" %016" PRIx64 " ", e->seed);
			man_hex(e->target, strlen(e->target));
			break;
		case 'l':
			man_add(" ");
			man_hex(e->target, strlen(e->target));
			break;
		}
		man_add("\n");
	}
	say("e4dump-guest: tree %s: %zu entries", g_tree, g_nent - first);
}

static int g_ntrees;
#define MAX_TREES 256
static char *g_tree_name[MAX_TREES + 1]; /* [n] = name of tree number n (from 1) */

void start_tree(const char *dir)
{
	int i;

	snprintf(g_tree, sizeof(g_tree), "%s", dir);
	for (i = 0; i < (int)g_nent; i++)
		if (!strcmp(g_ent[i].rel, dir))
			fail("tree %s defined twice", dir);
	if (g_ntrees == MAX_TREES)
		fail("too many trees");
	g_ntrees++;
	g_tree_name[g_ntrees] = xstrdup(dir);
	/* distinct, deterministic mtimes per tree */
	g_time_base = 1600000000 + (time_t)g_ntrees * 10000000;
}

struct entry *find_entry(const char *rel)
{
	size_t i;

	for (i = 0; i < g_nent; i++)
		if (!g_ent[i].gone && !strcmp(g_ent[i].rel, rel))
			return &g_ent[i];
	return NULL;
}

/* entries added to an existing tree later: set g_tree/g_time_base for the
 * tree that REL belongs to; *sub = REL inside the tree */
size_t late_begin(const char *rel, const char **sub, int lineno)
{
	size_t len = strcspn(rel, "/");
	int t;

	for (t = g_ntrees; t > 0; t--)
		if (strlen(g_tree_name[t]) == len && !memcmp(g_tree_name[t], rel, len))
			break;
	if (t == 0 || !rel[len])
		fail("line %d: %s is not inside a tree of the manifest", lineno, rel);
	snprintf(g_tree, sizeof(g_tree), "%s", g_tree_name[t]);
	g_time_base = 1600000000 + (time_t)t * 10000000;
	*sub = rel + len + 1;
	return g_nent;
}

/* record the new entries, then put back the mtimes of the tree's older
 * directories (creating entries changed some of them) */
void late_end(size_t first)
{
	size_t i, tl = strlen(g_tree);
	char p[4200];

	finish_tree(first);
	for (i = 0; i < first; i++) {
		struct entry *e = &g_ent[i];
		struct timespec ts[2] = { { e->mtime, 0 }, { e->mtime, 0 } };

		if (e->type != 'd' || e->gone || strncmp(e->rel, g_tree, tl) ||
		    (e->rel[tl] && e->rel[tl] != '/'))
			continue;
		abs_path(p, sizeof(p), e->rel);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0)
			FAILE("utimensat %s", p);
	}
}

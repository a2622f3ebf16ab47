/* e4dump QEMU guest, scenario commands: what the kernel shows and allows
 * without the key (readdir, lookup-all, open-all, nokey-ops, unlink-first,
 * exists, touch-names, stat-name, unlink-name).  Probes record what the
 * kernel did as manifest lines; only setup errors fail the run. */
#include "guest.h"

/* touch-names DIR NAMEHEX...: create each name (hex bytes) in the existing
 * directory DIR as an empty regular file 0644 (O_EXCL); not in the manifest.
 * Records "touched PATHHEX ERRNO". */
void cmd_touch_names(char **tok, int ntok, int lineno)
{
	const char *dir;
	char p[4200], f[4200];
	uint8_t name[256];
	int i;

	if (ntok < 3)
		fail("line %d: usage: touch-names DIR NAMEHEX...", lineno);
	dir = parse_relpath(tok[1], lineno);
	abs_path(p, sizeof(p), dir);
	for (i = 2; i < ntok; i++) {
		size_t n = parse_hex(tok[i], name, 255, lineno), k;
		int fd, e = 0;

		if (!n || memchr(name, 0, n) || memchr(name, '/', n))
			fail("line %d: bad name %s", lineno, tok[i]);
		name[n] = 0;
		join(f, sizeof(f), p, (const char *)name);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			e = errno;
		else if (close(fd) < 0)
			FAILE("line %d: close %s", lineno, f);
		man_add("touched ");
		for (k = 0; f[k + sizeof(MNT)]; k++)
			man_add("%02x", (unsigned char)f[k + sizeof(MNT)]);
		man_add(" %d\n", e);
	}
}

/* stat-name TAG DIR NAME: lstat DIR/NAME (NAME as given, e.g. a no-key
 * name).  Records "stat-name TAG INO ERRNO" (INO 0 on failure). */
void cmd_stat_name(char **tok, int ntok, int lineno)
{
	char p[4200], f[4200];
	struct stat st;
	int e = 0;

	if (ntok != 4)
		fail("line %d: usage: stat-name TAG DIR NAME", lineno);
	abs_path(p, sizeof(p), parse_relpath(tok[2], lineno));
	join(f, sizeof(f), p, tok[3]);
	if (lstat(f, &st) < 0) {
		e = errno;
		st.st_ino = 0;
	}
	man_add("stat-name %s %llu %d\n", parse_tag(tok[1], lineno),
		(unsigned long long)st.st_ino, e);
}

/* unlink-name TAG DIR NAME: unlink DIR/NAME.  Records "unlink-name TAG ERRNO". */
void cmd_unlink_name(char **tok, int ntok, int lineno)
{
	char p[4200], f[4200];
	int e = 0;

	if (ntok != 4)
		fail("line %d: usage: unlink-name TAG DIR NAME", lineno);
	abs_path(p, sizeof(p), parse_relpath(tok[2], lineno));
	join(f, sizeof(f), p, tok[3]);
	if (unlink(f) < 0)
		e = errno;
	man_add("unlink-name %s %d\n", parse_tag(tok[1], lineno), e);
}

static size_t readdir_rec(const char *tag, const char *rel, int inodes)
{
	size_t n, i, count = 0;
	struct dent *v = list_dir(rel, &n);
	char sub[4096];

	for (i = 0; i < n; i++) {
		join(sub, sizeof(sub), rel, v[i].name);
		man_add("n %s ", tag);
		man_hex(sub, strlen(sub));
		man_add("\n");
		if (inodes) {
			man_add("ino %s ", tag);
			man_hex(sub, strlen(sub));
			man_add(" %" PRIu64 "\n", v[i].ino);
		}
		count++;
		if (v[i].type == DT_LNK) {
			char p[4200], target[4096];
			ssize_t len;

			abs_path(p, sizeof(p), sub);
			len = readlink(p, target, sizeof(target));
			if (len < 0)
				FAILE("readlink %s", p);
			man_add("t %s ", tag);
			man_hex(sub, strlen(sub));
			man_add(" ");
			man_hex(target, (size_t)len);
			man_add("\n");
		}
		if (v[i].type == DT_DIR)
			count += readdir_rec(tag, sub, inodes);
	}
	free_list(v, n);
	return count;
}

void cmd_readdir(char **tok, int ntok, int lineno)
{
	char rel[4096];
	size_t n;

	if (ntok != 3 && (ntok != 4 || strcmp(tok[3], "inodes")))
		fail("line %d: usage: readdir TAG DIR [inodes]", lineno);
	parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	n = readdir_rec(tok[1], rel, ntok == 4);
	man_add("readdir %s ", tok[1]);
	man_hex(rel, strlen(rel));
	man_add(" %zu\n", n);
	say("e4dump-guest: readdir %s %s: %zu entries", tok[1], rel, n);
}

/* lookup-all (open = 0) and open-all (open = 1) */
static void probe_all(char **tok, int ntok, int lineno, int do_open)
{
	const char *what = do_open ? "open" : "lookup";
	char rel[4096], sub[4096], p[4200];
	size_t n, i, total = 0, ok = 0;
	struct dent *v;
	int *err, first_err = 0;

	if (ntok != 3)
		fail("line %d: usage: %s-all TAG DIR", lineno, what);
	parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	v = list_dir(rel, &n);
	err = xmalloc((n + 1) * sizeof(*err));
	for (i = 0; i < n; i++) {
		err[i] = -1; /* not tried */
		if (do_open && v[i].type != DT_REG)
			continue;
		join(sub, sizeof(sub), rel, v[i].name);
		abs_path(p, sizeof(p), sub);
		total++;
		if (do_open) {
			int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

			err[i] = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
		} else {
			struct stat st;

			err[i] = lstat(p, &st) < 0 ? errno : 0;
		}
		if (err[i] == 0)
			ok++;
		else if (!first_err)
			first_err = err[i];
	}
	man_add("%s %s ", what, tok[1]);
	man_hex(rel, strlen(rel));
	man_add(" %zu %zu", total, ok);
	if (do_open)
		man_add(" %d", first_err);
	man_add("\n");
	for (i = 0; i < n; i++) {
		if (err[i] <= 0)
			continue;
		join(sub, sizeof(sub), rel, v[i].name);
		man_add("%s-fail %s ", what, tok[1]);
		man_hex(sub, strlen(sub));
		man_add(" %d\n", err[i]);
	}
	say("e4dump-guest: %s-all %s %s: %zu of %zu ok%s%s", what, tok[1], rel, ok, total,
	    first_err ? ", first error: " : "", first_err ? strerror(first_err) : "");
	free(err);
	free_list(v, n);
}

void cmd_lookup_all(char **tok, int ntok, int lineno)
{
	probe_all(tok, ntok, lineno, 0);
}

void cmd_open_all(char **tok, int ntok, int lineno)
{
	probe_all(tok, ntok, lineno, 1);
}

/* the path recorded by the last unlink-first of each tag */
#define MAX_UNLINKED 64
static char *g_unl_tag[MAX_UNLINKED], *g_unl_path[MAX_UNLINKED];
static int g_nunl;

/* nokey-ops TAG DIR: without the key, the operations fscrypt.rst says fail
 * with ENOKEY in an encrypted directory: create, mkdir, symlink, mknod,
 * O_TMPFILE, link (of DIR's first regular file, into DIR), rename (of that
 * file within DIR and out of it), truncate.  Records "nokey-op TAG OP ERRNO"
 * per operation (0: it succeeded, which the run then undoes no further). */
void cmd_nokey_ops(char **tok, int ntok, int lineno)
{
	char rel[4096], sub[4096], p[4200], q[4200], f[4200];
	size_t n, i;
	struct dent *v;
	int fd, e;

	if (ntok != 3)
		fail("line %d: usage: nokey-ops TAG DIR", lineno);
	parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	abs_path(p, sizeof(p), rel);
	v = list_dir(rel, &n);
	i = first_regular(v, n, "nokey-ops", rel, lineno);
	join(sub, sizeof(sub), rel, v[i].name);
	abs_path(f, sizeof(f), sub);
#define NOKEY_OP(name, call)                                                   \
	do {                                                                   \
		e = (call) < 0 ? errno : 0;                                    \
		man_add("nokey-op %s %s %d\n", tok[1], name, e);              \
		say("e4dump-guest: without the key, %s in %s: %s", name, p,   \
		    e ? strerror(e) : "succeeded");                            \
	} while (0)
	join(q, sizeof(q), p, "e4new");
	fd = open(q, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	NOKEY_OP("create", fd);
	NOKEY_OP("mkdir", mkdir(q, 0755));
	NOKEY_OP("symlink", symlink("target", q));
	NOKEY_OP("mknod", mknod(q, S_IFIFO | 0644, 0));
	fd = open(p, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	NOKEY_OP("tmpfile", fd);
	NOKEY_OP("link", link(f, q));
	NOKEY_OP("rename", rename(f, q));
	NOKEY_OP("rename-out", rename(f, MNT "/e4renamed"));
	NOKEY_OP("truncate", truncate(f, 0));
#undef NOKEY_OP
	free_list(v, n);
}

void cmd_unlink_first(char **tok, int ntok, int lineno)
{
	char rel[4096], sub[4096], p[4200];
	size_t n, i;
	struct dent *v;
	struct entry *d;
	int k, e = 0;

	if (ntok != 3)
		fail("line %d: usage: unlink-first TAG DIR", lineno);
	parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	v = list_dir(rel, &n);
	i = first_regular(v, n, "unlink-first", rel, lineno);
	join(sub, sizeof(sub), rel, v[i].name);
	abs_path(p, sizeof(p), sub);
	if (unlink(p) < 0)
		e = errno;
	man_add(e ? "unlink-fail %s " : "unlinked %s ", tok[1]);
	man_hex(sub, strlen(sub));
	if (e)
		man_add(" %d", e);
	man_add("\n");
	if (!e) {
		/* which manifest entry was that?  Same inode, same directory. */
		const char *plaindir = parse_relpath(tok[2], lineno);
		size_t dl = strlen(plaindir), j;

		for (j = 0; j < g_nent; j++) {
			struct entry *x = &g_ent[j];

			if (x->ino == v[i].ino && x->type != 'd' && !strncmp(x->rel, plaindir, dl) &&
			    x->rel[dl] == '/' && !strchr(x->rel + dl + 1, '/')) {
				man_add("removed ");
				man_hex(x->rel, strlen(x->rel));
				man_add("\n");
				say("e4dump-guest: that was %s", x->rel);
				break;
			}
		}
	}
	say("e4dump-guest: unlink %s: %s", p, e ? strerror(e) : "ok");
	for (k = 0; k < g_nunl && strcmp(g_unl_tag[k], tok[1]); k++)
		;
	if (k == MAX_UNLINKED)
		fail("line %d: too many unlink-first tags", lineno);
	if (k == g_nunl) {
		g_unl_tag[k] = xstrdup(tok[1]);
		g_nunl++;
	} else {
		free(g_unl_path[k]);
	}
	g_unl_path[k] = xstrdup(sub);
	/* keep the directory's mtime as the manifest says */
	d = find_entry(parse_relpath(tok[2], lineno));
	if (!e && d && d->type == 'd') {
		struct timespec ts[2] = { { d->mtime, 0 }, { d->mtime, 0 } };

		abs_path(p, sizeof(p), rel);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0)
			say("e4dump-guest: note: utimensat %s: %s", p, strerror(errno));
	}
	free_list(v, n);
}

void cmd_exists(char **tok, int ntok, int lineno)
{
	char rel[4096], p[4200];
	struct stat st;
	int r;

	if (ntok != 3)
		fail("line %d: usage: exists TAG PATHHEX|@UNLINK_TAG", lineno);
	parse_tag(tok[1], lineno);
	if (tok[2][0] == '@') {
		int k;

		for (k = 0; k < g_nunl && strcmp(g_unl_tag[k], tok[2] + 1); k++)
			;
		if (k == g_nunl)
			fail("line %d: no unlink-first with tag %s before", lineno, tok[2] + 1);
		snprintf(rel, sizeof(rel), "%s", g_unl_path[k]);
	} else {
		size_t len = parse_hex(tok[2], (unsigned char *)rel, sizeof(rel) - 1, lineno);

		rel[len] = '\0';
		if (strlen(rel) != len)
			fail("line %d: NUL byte in path", lineno);
	}
	abs_path(p, sizeof(p), rel);
	r = lstat(p, &st);
	if (r < 0 && errno != ENOENT)
		FAILE("line %d: lstat %s", lineno, p);
	man_add("exists %s ", tok[1]);
	man_hex(rel, strlen(rel));
	man_add(" %d\n", r == 0);
	say("e4dump-guest: exists %s: %d", p, r == 0);
}

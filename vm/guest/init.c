/*
 * e4dump QEMU guest: /init of the test initramfs.
 *
 * Reads a scenario from /dev/vdb (offset 0, NUL-terminated, at most 64 KiB),
 * mounts the ext4 image /dev/vda on /mnt, executes the scenario (adds fscrypt
 * v1 keys, sets v1 policies, writes deterministic trees), writes a manifest
 * of everything it created at offset 65536 of /dev/vdb (NUL-terminated),
 * unmounts /mnt, prints "E4DUMP-GUEST-OK" (or "E4DUMP-GUEST-FAIL: reason")
 * on the console and reboots (QEMU runs with -no-reboot, so it exits).
 *
 * The scenario language, the manifest format and the content generator are
 * documented in vm/README.md; tests/vm/check_extract.py is an independent
 * reimplementation of the generator and must stay in sync with it.
 *
 * Build: gcc -static -O2 -Wall -Wextra -Werror -std=gnu11 -o init init.c
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SCEN_MAX 65536
#define MANIFEST_OFF 65536
#define MNT "/mnt"

/* ---- kernel ABI (defined here so that the guest does not depend on the
 * host's header version; values from include/uapi/linux/fscrypt.h) ---- */
struct e4_fscrypt_policy_v1 {
	uint8_t version; /* FSCRYPT_POLICY_V1 == 0 */
	uint8_t contents_encryption_mode;
	uint8_t filenames_encryption_mode;
	uint8_t flags;
	uint8_t master_key_descriptor[8];
};
struct e4_fscrypt_key {
	uint32_t mode;
	uint8_t raw[64];
	uint32_t size;
};
_Static_assert(sizeof(struct e4_fscrypt_policy_v1) == 12, "policy v1 size");
_Static_assert(sizeof(struct e4_fscrypt_key) == 72, "fscrypt_key size");
#define E4_IOC_SET_ENCRYPTION_POLICY _IOR('f', 19, struct e4_fscrypt_policy_v1)
#define E4_IOC_GET_ENCRYPTION_POLICY _IOW('f', 21, struct e4_fscrypt_policy_v1)
#define E4_KEYCTL_JOIN_SESSION_KEYRING 1
#define E4_KEY_SPEC_SESSION_KEYRING (-3)

/* ---- console / failure ---------------------------------------------------- */

static int g_vdb = -1;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0) {
		/* nothing sensible to do */
	}
}

static void finish(int ok) __attribute__((noreturn));
static void finish(int ok)
{
	(void)ok;
	sync();
	reboot(RB_AUTOBOOT);
	/* reboot() only returns on error; make the kernel panic (panic=-1
	 * reboots, and QEMU exits because of -no-reboot). */
	_exit(1);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("E4DUMP-GUEST-FAIL: %s", buf);
	umount2(MNT, 0);
	finish(0);
}

/* fail with errno text */
#define FAILE(...) fail_errno(errno, __VA_ARGS__)
static void fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail_errno(int err, const char *fmt, ...)
{
	char buf[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fail("%s: %s (errno %d)", buf, strerror(err), err);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fail("out of memory (%zu bytes)", n);
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fail("out of memory");
	return p;
}

/* ---- growing text buffer (the manifest) ---------------------------------- */

static char *g_man;
static size_t g_man_len, g_man_cap;

static void man_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void man_add(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = g_man_cap - g_man_len;

		va_start(ap, fmt);
		n = vsnprintf(g_man ? g_man + g_man_len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			fail("vsnprintf failed");
		if ((size_t)n < room) {
			g_man_len += n;
			return;
		}
		g_man_cap = g_man_cap ? g_man_cap * 2 : 65536;
		while (g_man_cap - g_man_len <= (size_t)n)
			g_man_cap *= 2;
		g_man = realloc(g_man, g_man_cap);
		if (!g_man)
			fail("out of memory (manifest)");
	}
}

static void man_hex(const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		man_add("%02x", p[i]);
}

/* ---- content generator ----------------------------------------------------
 * seed  = FNV-1a 64 of the path relative to /mnt (e.g. "pad4/sub/one.txt")
 * bytes = splitmix64(seed) outputs, each stored as 8 little-endian bytes,
 *         concatenated and truncated to the file size.
 * Byte i of a file is byte i of that stream (holes of sparse files are 0). */

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned char *gen_content(uint64_t seed, size_t size)
{
	unsigned char *buf = xmalloc(size + 8);
	uint64_t st = seed;
	size_t i;
	int k;

	for (i = 0; i < size; i += 8) {
		uint64_t v = splitmix64(&st);

		for (k = 0; k < 8; k++)
			buf[i + k] = (unsigned char)(v >> (8 * k));
	}
	return buf;
}

/* ---- entries of one tree --------------------------------------------------- */

struct extent {
	uint64_t off, len;
};

struct entry {
	char type;           /* f d l h s */
	char *rel;           /* path relative to /mnt */
	unsigned mode;       /* wanted permission bits */
	time_t mtime;        /* wanted mtime (seconds, nsec = 0) */
	uint64_t size;       /* f/s: wanted size */
	uint64_t seed;       /* f/s/h: content seed */
	char *target;        /* l: symlink target; h: rel path of the first name */
	struct extent ext[8];/* s: data extents */
	int next;
};

static struct entry *g_ent;
static size_t g_nent, g_cap_ent;
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

static void abs_path(char *out, size_t n, const char *rel)
{
	if ((size_t)snprintf(out, n, MNT "/%s", rel) >= n)
		fail("path too long: %s", rel);
}

static void write_all(int fd, const unsigned char *p, size_t n, off_t off, const char *what)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			FAILE("pwrite %s", what);
		}
		if (w == 0)
			fail("pwrite %s: wrote 0 bytes", what);
		p += w;
		n -= (size_t)w;
		off += w;
	}
}

static struct entry *mk_dir(const char *sub, unsigned mode)
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

static struct entry *mk_file(const char *sub, unsigned mode, uint64_t size)
{
	struct entry *e = new_entry('f', sub);

	e->size = size;
	write_file(e, mode, 0);
	return e;
}

static struct entry *mk_sparse(const char *sub, unsigned mode, uint64_t size,
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

static struct entry *mk_symlink(const char *sub, const char *target)
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

static struct entry *mk_hardlink(const char *sub, const struct entry *orig)
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
static const char *mkname(char *buf, const char *prefix, size_t len)
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

static void expect_len(const char *name, size_t len)
{
	if (strlen(name) != len)
		fail("internal: name '%s' is %zu bytes, wanted %zu", name, strlen(name), len);
}

/* The standard tree (see vm/README.md).  The tree root already exists. */
static void build_standard(void)
{
	char n[256];
	struct entry *e;
	const struct extent sp[3] = { { 0, 4096 }, { 40960, 4096 }, { 98304, 100000 - 98304 } };
	static const char name15[] = "file fifteen 15";
	static const char name16[] = "sixteen-bytes-16";
	static const char name17[] = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e file 17"; /* 日本語 */
	char long_target[301];
	static const char mid_target[] = "some/medium/length/symlink/target/44-bytes.x";
	struct entry *hl;

	expect_len(name15, 15);
	expect_len(name16, 16);
	expect_len(name17, 17);
	expect_len(mid_target, 44);

	/* regular files: names of 1, 2, 15, 16, 17, 31, 32, 33, 100, 255 bytes */
	mk_file("a", 0644, 0);
	mk_file("\xc3\xa9", 0600, 1); /* "é", 2 bytes */
	mk_file(name15, 0640, 15);
	mk_file(name16, 0644, 16);
	mk_file(name17, 0755, 17);
	mk_file(mkname(n, "name of 31 bytes ", 31), 0644, 4095);
	mk_file(mkname(n, "name of 32 bytes ", 32), 0600, 4096);
	mk_file(mkname(n, "name of 33 bytes ", 33), 0644, 4097);
	mk_file(mkname(n, "a name of one hundred bytes ", 100), 0644, 1048576 + 123);
	/* 255 bytes with multi-byte UTF-8: "長い名前 " */
	mk_file(mkname(n, "\xe9\x95\xb7\xe3\x81\x84\xe5\x90\x8d\xe5\x89\x8d 255 ", 255), 0640, 12345);
	mk_sparse("sparse file", 0644, 100000, sp, 3);

	/* nested directories, with files at each level */
	mk_dir("sub", 0755);
	mk_file("sub/one.txt", 0644, 300);
	mk_dir("sub/deeper", 0700);
	e = mk_file("sub/deeper/two", 0600, 5000);
	e->mtime = 2200000000; /* after 2038: needs the extra epoch bits */
	mk_dir("sub/deeper/deepest dir", 0755);
	mk_file("sub/deeper/deepest dir/three.bin", 0644, 8193);
	mk_dir("sub/deeper/deepest dir/level4", 0750);
	mk_file("sub/deeper/deepest dir/level4/four", 0644, 33);
	mk_dir("empty", 0755);
	mk_dir("empty 0700", 0700);

	/* symlinks */
	mk_symlink("link-short", "a/b");
	mk_symlink("link-mid", mid_target);
	for (size_t i = 0; i < 300; i++) /* "long-symlink-target/" repeated */
		long_target[i] = "long-symlink-target/"[i % 20];
	long_target[300] = '\0';
	expect_len(long_target, 300);
	mk_symlink("link-long", long_target);
	mk_symlink("sub/link-up", "../a");
	mk_symlink("link-utf8", "\xe6\x97\xa5\xe6\x9c\xac/\xc3\xa9");

	/* hard link: a second name for one file, in another directory */
	hl = mk_file("hardlink target", 0640, 777);
	mk_hardlink("sub/hard link", hl);
}

/* A handful of entries (for the small bundled sample image). */
static void build_small(void)
{
	mk_file("hello.txt", 0644, 100);
	mk_file("\xe6\x97\xa5\xe6\x9c\xac.txt", 0600, 17); /* 日本.txt */
	mk_dir("sub", 0755);
	mk_file("sub/nested file.bin", 0640, 5000);
	mk_symlink("link", "hello.txt");
	mk_symlink("sub/up", "../hello.txt");
	mk_dir("empty", 0700);
}

/* 3000 entries: htree-indexed directory */
static void build_big(void)
{
	char name[300], sub[600];
	int i;

	mk_dir("bigdir", 0755);
	for (i = 1; i <= 2900; i++) {
		snprintf(sub, sizeof(sub), "bigdir/entry-%05d", i);
		mk_file(sub, 0644, (uint64_t)((i * 7) % 64));
	}
	for (i = 0; i < 100; i++) {
		char prefix[16];

		snprintf(prefix, sizeof(prefix), "var%03d-", i);
		mkname(name, prefix, 8 + (size_t)((i * 37) % 248));
		snprintf(sub, sizeof(sub), "bigdir/%s", name);
		mk_file(sub, 0644, (uint64_t)(i % 40));
	}
}

/* Set times (non-directories first, then directories deepest first, the tree
 * root last) and append the manifest lines of the tree. */
static void finish_tree(size_t first)
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

/* ---- scenario ---------------------------------------------------------------- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* returns byte count, fails on bad hex */
static size_t parse_hex(const char *s, unsigned char *out, size_t max, int lineno)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max || n == 0)
		fail("line %d: bad hex string '%s' (max %zu bytes)", lineno, s, max);
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			fail("line %d: bad hex string '%s'", lineno, s);
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return n / 2;
}

static unsigned long parse_num(const char *s, unsigned long max, int lineno)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max)
		fail("line %d: bad number '%s'", lineno, s);
	return v;
}

/* tree directory names: one path component of [A-Za-z0-9._-], a leading '/'
 * is allowed and dropped */
static const char *parse_dir(const char *s, int lineno)
{
	const char *p;

	if (*s == '/')
		s++;
	if (!*s || strlen(s) > 200 || !strcmp(s, ".") || !strcmp(s, ".."))
		fail("line %d: bad directory name", lineno);
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			fail("line %d: bad directory name '%s'", lineno, s);
	return s;
}

static int g_ntrees;

static void cmd_key(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_key k;
	unsigned char desc[8];
	char description[64];
	long id;

	if (ntok != 4)
		fail("line %d: usage: key PREFIX DESCHEX KEYHEX", lineno);
	if (parse_hex(tok[2], desc, sizeof(desc), lineno) != 8)
		fail("line %d: descriptor must be 8 bytes (16 hex digits)", lineno);
	if (strlen(tok[1]) > 20)
		fail("line %d: prefix too long", lineno);
	memset(&k, 0, sizeof(k));
	k.mode = 0;
	k.size = (uint32_t)parse_hex(tok[3], k.raw, sizeof(k.raw), lineno);
	snprintf(description, sizeof(description), "%s:%s", tok[1], tok[2]);
	for (char *c = description; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	id = syscall(SYS_add_key, "logon", description, &k, sizeof(k),
		     E4_KEY_SPEC_SESSION_KEYRING);
	if (id < 0)
		FAILE("line %d: add_key logon %s", lineno, description);
	say("e4dump-guest: key %s (%u bytes) = %ld", description, k.size, id);
	man_add("key %s %u\n", description, k.size);
}

static void start_tree(const char *dir)
{
	int i;

	snprintf(g_tree, sizeof(g_tree), "%s", dir);
	g_ntrees++;
	/* distinct, deterministic mtimes per tree */
	g_time_base = 1600000000 + (time_t)g_ntrees * 10000000;
	for (i = 0; i < (int)g_nent; i++)
		if (!strcmp(g_ent[i].rel, dir))
			fail("tree %s defined twice", dir);
}

/* shape options: big, small */
static void populate(char **opt, int nopt, int lineno)
{
	int big = 0, small = 0, i;

	for (i = 0; i < nopt; i++) {
		if (!strcmp(opt[i], "big"))
			big = 1;
		else if (!strcmp(opt[i], "small"))
			small = 1;
		else
			fail("line %d: unknown tree option '%s'", lineno, opt[i]);
	}
	if (small)
		build_small();
	else
		build_standard();
	if (big)
		build_big();
}

static void cmd_tree(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 pol, got;
	const char *dir;
	char p[4200];
	size_t first = g_nent;
	int fd;

	if (ntok < 6)
		fail("line %d: usage: tree DIR DESCHEX CONTENTS_MODE FNAMES_MODE FLAGS [big] [small]", lineno);
	dir = parse_dir(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	pol.version = 0;
	if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
		fail("line %d: descriptor must be 8 bytes", lineno);
	pol.contents_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
	pol.filenames_encryption_mode = (uint8_t)parse_num(tok[4], 255, lineno);
	pol.flags = (uint8_t)parse_num(tok[5], 255, lineno);

	start_tree(dir);
	mk_dir(NULL, 0755);
	abs_path(p, sizeof(p), dir);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s", p);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY on %s", lineno, p);
	memset(&got, 0xff, sizeof(got));
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_POLICY, &got) < 0)
		FAILE("line %d: FS_IOC_GET_ENCRYPTION_POLICY on %s", lineno, p);
	if (memcmp(&got, &pol, sizeof(pol)))
		fail("line %d: policy read back from %s differs", lineno, p);
	if (close(fd) < 0)
		FAILE("close %s", p);

	man_add("tree %s enc %s %u %u %u", dir, tok[2], pol.contents_encryption_mode,
		pol.filenames_encryption_mode, pol.flags);
	for (int i = 6; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	populate(tok + 6, ntok - 6, lineno);
	finish_tree(first);
}

static void cmd_plain(char **tok, int ntok, int lineno)
{
	const char *dir;
	size_t first = g_nent;

	if (ntok < 2)
		fail("line %d: usage: plain DIR [big] [small]", lineno);
	dir = parse_dir(tok[1], lineno);
	start_tree(dir);
	mk_dir(NULL, 0755);
	man_add("tree %s plain", dir);
	for (int i = 2; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	populate(tok + 2, ntok - 2, lineno);
	finish_tree(first);
}

static void run_scenario(char *text)
{
	char *line, *save = NULL;
	int lineno = 0;
	char *copy = xstrdup(text);

	/* strtok_r would merge empty lines and break line numbers: split by hand */
	line = copy;
	while (line) {
		char *nl = strchr(line, '\n');
		char *tok[32];
		int ntok = 0;
		char *t;

		if (nl)
			*nl = '\0';
		lineno++;
		for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (ntok == 32)
				fail("line %d: too many words", lineno);
			tok[ntok++] = t;
		}
		if (ntok > 0 && tok[0][0] != '#' && tok[0][0] != '@') {
			if (!strcmp(tok[0], "key"))
				cmd_key(tok, ntok, lineno);
			else if (!strcmp(tok[0], "tree"))
				cmd_tree(tok, ntok, lineno);
			else if (!strcmp(tok[0], "plain"))
				cmd_plain(tok, ntok, lineno);
			else
				fail("line %d: unknown command '%s'", lineno, tok[0]);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
}

/* ---- main ------------------------------------------------------------------- */

static void setup_console(void)
{
	int fd;

	if (mkdir("/dev", 0755) < 0 && errno != EEXIST)
		FAILE("mkdir /dev");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) < 0 && errno != EBUSY)
		FAILE("mount devtmpfs");
	fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (mkdir("/proc", 0755) < 0 && errno != EEXIST)
		FAILE("mkdir /proc");
	if (mount("proc", "/proc", "proc", 0, NULL) < 0 && errno != EBUSY)
		FAILE("mount proc");
	if (mkdir(MNT, 0755) < 0 && errno != EEXIST)
		FAILE("mkdir " MNT);
}

static int open_retry(const char *path, int flags)
{
	int i, fd = -1;

	/* virtio probing is synchronous for built-in drivers, but be tolerant */
	for (i = 0; i < 50; i++) {
		fd = open(path, flags);
		if (fd >= 0 || errno != ENOENT)
			break;
		usleep(100000);
	}
	if (fd < 0)
		FAILE("open %s", path);
	return fd;
}

int main(void)
{
	char *scen = xmalloc(SCEN_MAX + 1);
	uint64_t devsize = 0;
	ssize_t n;
	long ks;

	umask(0);
	setup_console();
	say("e4dump-guest: starting");

	/* Give init a session keyring of its own; fscrypt v1 finds keys with
	 * request_key(), which searches the thread/process/session keyrings. */
	ks = syscall(SYS_keyctl, E4_KEYCTL_JOIN_SESSION_KEYRING, NULL);
	if (ks < 0)
		FAILE("keyctl(JOIN_SESSION_KEYRING)");

	g_vdb = open_retry("/dev/vdb", O_RDWR | O_CLOEXEC);
	if (ioctl(g_vdb, BLKGETSIZE64, &devsize) < 0)
		FAILE("BLKGETSIZE64 /dev/vdb");
	n = pread(g_vdb, scen, SCEN_MAX, 0);
	if (n < 0)
		FAILE("read scenario from /dev/vdb");
	scen[n] = '\0';
	if (!memchr(scen, '\0', (size_t)n))
		fail("scenario on /dev/vdb is not NUL-terminated within %d bytes", SCEN_MAX);

	open_retry("/dev/vda", O_RDONLY | O_CLOEXEC); /* wait for it */
	if (mount("/dev/vda", MNT, "ext4", 0, NULL) < 0)
		FAILE("mount /dev/vda on " MNT " (ext4)");

	man_add("# e4dump-manifest 1\n");
	run_scenario(scen);
	man_add("end %zu\n", g_nent);

	if (MANIFEST_OFF + g_man_len + 1 > devsize)
		fail("manifest (%zu bytes) does not fit on /dev/vdb (%" PRIu64 " bytes)",
		     g_man_len, devsize);
	write_all(g_vdb, (const unsigned char *)g_man, g_man_len + 1 /* NUL */,
		  MANIFEST_OFF, "/dev/vdb (manifest)");
	if (fsync(g_vdb) < 0)
		FAILE("fsync /dev/vdb");
	if (close(g_vdb) < 0)
		FAILE("close /dev/vdb");

	if (umount2(MNT, 0) < 0)
		FAILE("umount " MNT);
	sync();
	say("e4dump-guest: %zu entries, manifest %zu bytes", g_nent, g_man_len);
	say("E4DUMP-GUEST-OK");
	finish(1);
}

/*
 * e4dump QEMU guest: /init of the test initramfs.
 *
 * Reads a scenario from /dev/vdb (offset 0, NUL-terminated, at most 64 KiB),
 * mounts the ext4 image /dev/vda on /mnt, executes the scenario (adds fscrypt
 * v1 and v2 keys, sets v1/v2 policies, writes deterministic trees), writes a manifest
 * of everything it created at offset 65536 of /dev/vdb (NUL-terminated),
 * unmounts /mnt, prints "E4DUMP-GUEST-OK" (or "E4DUMP-GUEST-FAIL: reason")
 * on the console and reboots (QEMU runs with -no-reboot, so it exits).
 * Kernel-probe commands (remount with options, forget-keys, no-key readdir,
 * lookups/opens/unlinks by the returned names, ...) record what the kernel
 * did as further manifest lines.
 *
 * The scenario language, the manifest format and the content generator are
 * documented in vm/README.md; tests/vm/check_extract.py is an independent
 * reimplementation of the generator and must stay in sync with it.
 *
 * Build: gcc -static -O2 -Wall -Wextra -Werror -std=gnu11 -o init init.c
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
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
/* FS_IOC_GET_ENCRYPTION_POLICY_EX (Linux >= 5.4): any policy version */
struct e4_get_policy_ex_arg {
	uint64_t policy_size; /* in: size of policy[]; out: size of the policy */
	uint8_t policy[64];   /* v1: 12 bytes, v2: 24 bytes; version first */
};
#define E4_IOC_GET_ENCRYPTION_POLICY_EX _IOWR('f', 22, uint8_t[9])
/* v2 policies (Linux >= 5.4): keys live in the filesystem's keyring */
struct e4_fscrypt_policy_v2 {
	uint8_t version; /* FSCRYPT_POLICY_V2 == 2 */
	uint8_t contents_encryption_mode;
	uint8_t filenames_encryption_mode;
	uint8_t flags;
	uint8_t __reserved[4];
	uint8_t master_key_identifier[16];
};
struct e4_fscrypt_key_specifier {
	uint32_t type; /* FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER == 2 */
	uint32_t __reserved;
	union {
		uint8_t __reserved[32];
		uint8_t descriptor[8];
		uint8_t identifier[16];
	} u;
};
struct e4_fscrypt_add_key_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t raw_size;
	uint32_t key_id;
	uint32_t __reserved[8];
	uint8_t raw[];
};
_Static_assert(sizeof(struct e4_fscrypt_policy_v2) == 24, "policy v2 size");
_Static_assert(sizeof(struct e4_fscrypt_key_specifier) == 40, "key specifier size");
_Static_assert(sizeof(struct e4_fscrypt_add_key_arg) == 80, "add_key_arg size");
#define E4_FSCRYPT_POLICY_V2 2
#define E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER 2
#define E4_IOC_ADD_ENCRYPTION_KEY _IOWR('f', 23, struct e4_fscrypt_add_key_arg)
#define E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR 1
struct e4_fscrypt_remove_key_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t removal_status_flags; /* 1 FILES_BUSY, 2 OTHER_USERS */
	uint32_t __reserved[5];
};
struct e4_fscrypt_get_key_status_arg {
	struct e4_fscrypt_key_specifier key_spec;
	uint32_t __reserved[6];
	uint32_t status;       /* 1 ABSENT, 2 PRESENT, 3 INCOMPLETELY_REMOVED */
	uint32_t status_flags; /* 1 ADDED_BY_SELF */
	uint32_t user_count;
	uint32_t __out_reserved[13];
};
_Static_assert(sizeof(struct e4_fscrypt_remove_key_arg) == 64, "remove_key_arg size");
_Static_assert(sizeof(struct e4_fscrypt_get_key_status_arg) == 128, "key_status_arg size");
#define E4_IOC_REMOVE_ENCRYPTION_KEY _IOWR('f', 24, struct e4_fscrypt_remove_key_arg)
#define E4_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS _IOWR('f', 25, struct e4_fscrypt_remove_key_arg)
#define E4_IOC_GET_ENCRYPTION_KEY_STATUS _IOWR('f', 26, struct e4_fscrypt_get_key_status_arg)
/* inode flags (FS_IOC_GETFLAGS / FS_IOC_SETFLAGS: the kernel reads an int) */
#define E4_IOC_GETFLAGS _IOR('f', 1, long)
#define E4_IOC_SETFLAGS _IOW('f', 2, long)
#define E4_FS_CASEFOLD_FL 0x40000000 /* EXT4_CASEFOLD_FL */
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
	uint64_t ino;        /* inode number read back (0 = not yet) */
	int gone;            /* removed by unlink/rmtree */
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

/* Preallocate (fallocate FALLOC_FL_KEEP_SIZE: unwritten extents, read as
 * zeros) len bytes at off of a file made by mk_sparse; past i_size too. */
static void prealloc(const struct entry *e, off_t off, off_t len)
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
	/* i_size past the last extent (a trailing hole), and unwritten
	 * extents inside i_size and past it */
	mk_sparse("trailing hole", 0644, 50000, sp, 1);
	e = mk_sparse("preallocated", 0644, 40000, sp, 1);
	prealloc(e, 8192, 16384);
	prealloc(e, 40960, 16384);

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
#define MAX_TREES 256
static char *g_tree_name[MAX_TREES + 1]; /* [n] = name of tree number n (from 1) */

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

/* identifier of the most recent key2 (for tree2 without IDHEX) */
static uint8_t g_last_id2[16];
static int g_have_id2;
/* identifiers of the keys key2 added (forget-keys keep-mount removes them) */
#define KEY2_MAX 16
static uint8_t g_key2_ids[KEY2_MAX][16];
static int g_nkey2_ids;

static void cmd_key2(char **tok, int ntok, int lineno)
{
	struct {
		struct e4_fscrypt_add_key_arg a;
		uint8_t raw[64];
	} k;
	int fd;

	_Static_assert(offsetof(__typeof__(k), raw) == sizeof(struct e4_fscrypt_add_key_arg),
		       "raw[] right after the header");
	if (ntok != 2)
		fail("line %d: usage: key2 KEYHEX", lineno);
	memset(&k, 0, sizeof(k));
	k.a.key_spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.a.raw_size = (uint32_t)parse_hex(tok[1], k.raw, sizeof(k.raw), lineno);
	if (k.a.raw_size < 16)
		fail("line %d: a v2 master key has 16..64 bytes", lineno);
	k.a.key_id = 0;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_ADD_ENCRYPTION_KEY, &k) < 0)
		FAILE("line %d: FS_IOC_ADD_ENCRYPTION_KEY on " MNT, lineno);
	close(fd);
	memcpy(g_last_id2, k.a.key_spec.u.identifier, 16);
	g_have_id2 = 1;
	if (g_nkey2_ids < KEY2_MAX)
		memcpy(g_key2_ids[g_nkey2_ids++], g_last_id2, 16);
	man_add("key2 ");
	man_hex(g_last_id2, 16);
	man_add(" %u\n", k.a.raw_size);
	say("e4dump-guest: key2 (%u bytes) added, identifier %02x%02x%02x%02x...", k.a.raw_size,
	    g_last_id2[0], g_last_id2[1], g_last_id2[2], g_last_id2[3]);
}

static void start_tree(const char *dir)
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

static int g_casefold_opt; /* tree2 is populating: casefold was handled */

/* shape options: big, small (casefold: tree2 only, handled before) */
static void populate(char **opt, int nopt, int lineno)
{
	int big = 0, small = 0, i;

	for (i = 0; i < nopt; i++) {
		if (!strcmp(opt[i], "big"))
			big = 1;
		else if (!strcmp(opt[i], "small"))
			small = 1;
		else if (!strcmp(opt[i], "casefold") && g_casefold_opt)
			continue;
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

static int is_hex32(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return i == 32;
}

static int get_policy_fd(int fd, struct e4_get_policy_ex_arg *a);

/* Option casefold of tree2: FS_CASEFOLD_FL on the new, empty (and not yet
 * encrypted) directory open as fd, read back.  Needs the casefold feature. */
static void set_casefold(int fd, const char *p, int lineno)
{
	int flags = 0;

	if (ioctl(fd, E4_IOC_GETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_GETFLAGS on %s", lineno, p);
	flags |= E4_FS_CASEFOLD_FL;
	if (ioctl(fd, E4_IOC_SETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_SETFLAGS (casefold) on %s", lineno, p);
	flags = 0;
	if (ioctl(fd, E4_IOC_GETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_GETFLAGS on %s", lineno, p);
	if (!(flags & E4_FS_CASEFOLD_FL))
		fail("line %d: %s: casefold flag not set (flags 0x%x)", lineno, p, (unsigned)flags);
	say("e4dump-guest: %s casefolded (flags 0x%x)", p, (unsigned)flags);
}

/* tree2 DIR CMODE FMODE FLAGS [IDHEX|@last] [casefold] [big] [small] */
static void cmd_tree2(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v2 pol;
	struct e4_get_policy_ex_arg got;
	const char *dir;
	char p[4200];
	size_t first = g_nent;
	int fd, nopt = 5;

	if (ntok < 5)
		fail("line %d: usage: tree2 DIR CONTENTS_MODE FNAMES_MODE FLAGS [IDHEX|@last] [casefold] [big] [small]",
		     lineno);
	dir = parse_dir(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	pol.version = E4_FSCRYPT_POLICY_V2;
	pol.contents_encryption_mode = (uint8_t)parse_num(tok[2], 255, lineno);
	pol.filenames_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
	pol.flags = (uint8_t)parse_num(tok[4], 255, lineno);
	if (ntok > 5 && is_hex32(tok[5])) {
		parse_hex(tok[5], pol.master_key_identifier, 16, lineno);
		nopt = 6;
	} else {
		if (ntok > 5 && !strcmp(tok[5], "@last"))
			nopt = 6;
		if (!g_have_id2)
			fail("line %d: tree2 without IDHEX needs a key2 line before", lineno);
		memcpy(pol.master_key_identifier, g_last_id2, 16);
	}

	start_tree(dir);
	mk_dir(NULL, 0755);
	abs_path(p, sizeof(p), dir);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s", p);
	for (int i = nopt; i < ntok; i++)
		if (!strcmp(tok[i], "casefold"))
			set_casefold(fd, p, lineno);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY (v2) on %s", lineno, p);
	errno = get_policy_fd(fd, &got);
	if (errno)
		FAILE("line %d: FS_IOC_GET_ENCRYPTION_POLICY_EX on %s", lineno, p);
	if (got.policy_size != sizeof(pol) || memcmp(got.policy, &pol, sizeof(pol)))
		fail("line %d: v2 policy read back from %s differs", lineno, p);
	if (close(fd) < 0)
		FAILE("close %s", p);

	man_add("tree %s enc2 ", dir);
	man_hex(pol.master_key_identifier, 16);
	man_add(" %u %u %u", pol.contents_encryption_mode, pol.filenames_encryption_mode,
		pol.flags);
	for (int i = nopt; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\n");
	g_casefold_opt = 1;
	populate(tok + nopt, ntok - nopt, lineno);
	g_casefold_opt = 0;
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

/* ---- mounts, keys and kernel-behaviour probes --------------------------------
 * The commands below (remount, forget-keys, readdir, lookup-all, open-all,
 * unlink-first, exists, policy-nonempty, inherit, dummy-tree, mkdir,
 * bigdir-names, files) are documented in vm/README.md.  Probes record what the
 * kernel did as manifest lines; only setup errors fail the run. */

static char g_mountopts[1024]; /* data string of the current mount, "" = none */
static int g_mounted;           /* 0 with "@nomount" until a mount succeeds */

static int mount_img(void)
{
	if (mount("/dev/vda", MNT, "ext4", 0, g_mountopts[0] ? g_mountopts : NULL) < 0)
		return -1;
	g_mounted = 1;
	return 0;
}

static void umount_img(int lineno)
{
	if (g_mounted && umount2(MNT, 0) < 0)
		FAILE("line %d: umount " MNT, lineno);
	g_mounted = 0;
}

static void remount_img(int lineno)
{
	umount_img(lineno);
	if (mount_img() < 0)
		FAILE("line %d: mount /dev/vda on " MNT " (ext4, options '%s')", lineno,
		      g_mountopts);
}

static void cmd_remount(char **tok, int ntok, int lineno)
{
	if (ntok > 2)
		fail("line %d: usage: remount [OPTS]", lineno);
	if (ntok == 2 && strlen(tok[1]) >= sizeof(g_mountopts))
		fail("line %d: mount options too long", lineno);
	snprintf(g_mountopts, sizeof(g_mountopts), "%s", ntok == 2 ? tok[1] : "");
	remount_img(lineno);
	say("e4dump-guest: remounted with options '%s'", g_mountopts);
	man_add("remount %s\n", g_mountopts[0] ? g_mountopts : "-");
}

static void drop_caches(void);

/* forget-keys [keep-mount]: without keep-mount, a new session keyring and a
 * remount.  With keep-mount the image stays mounted (a mount starts writing
 * the journal at its first block again, which would overwrite what the
 * undelete scenarios need): a new session keyring, every key2 key removed
 * from the filesystem's keyring (FS_IOC_REMOVE_ENCRYPTION_KEY syncs and
 * evicts its inodes), then syncfs and drop_caches evict the v1 inodes. */
static void cmd_forget_keys(char **tok, int ntok, int lineno)
{
	int keep = ntok == 2 && !strcmp(tok[1], "keep-mount");

	if (ntok != 1 && !keep)
		fail("line %d: usage: forget-keys [keep-mount]", lineno);
	if (syscall(SYS_keyctl, E4_KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		FAILE("line %d: keyctl(JOIN_SESSION_KEYRING)", lineno);
	if (!keep) {
		remount_img(lineno); /* evicts the inodes and their cached keys */
		say("e4dump-guest: keys forgotten (new session keyring, remounted)");
		man_add("forget-keys\n");
		return;
	}
	for (int i = 0; i < g_nkey2_ids; i++) {
		struct e4_fscrypt_remove_key_arg a;
		int fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			FAILE("open " MNT);
		memset(&a, 0, sizeof(a));
		a.key_spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		memcpy(a.key_spec.u.identifier, g_key2_ids[i], 16);
		if (ioctl(fd, E4_IOC_REMOVE_ENCRYPTION_KEY, &a) < 0 && errno != ENOKEY)
			FAILE("line %d: FS_IOC_REMOVE_ENCRYPTION_KEY", lineno);
		close(fd);
		if (a.removal_status_flags)
			fail("line %d: forget-keys keep-mount: a v2 key is still in use (flags 0x%x)",
			     lineno, a.removal_status_flags);
	}
	g_nkey2_ids = 0;
	drop_caches();
	say("e4dump-guest: keys forgotten (new session keyring, v2 keys removed, caches dropped)");
	man_add("forget-keys\n");
}

/* TAG: 1..64 characters of [A-Za-z0-9._-] */
static const char *parse_tag(const char *s, int lineno)
{
	const char *p;

	if (!*s || strlen(s) > 64)
		fail("line %d: bad tag '%s'", lineno, s);
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			fail("line %d: bad tag '%s'", lineno, s);
	return s;
}

/* relative path: components of [A-Za-z0-9._-] separated by single '/', no
 * "." or ".." component; a leading '/' is dropped */
static const char *parse_relpath(const char *s, int lineno)
{
	const char *p, *c;

	if (*s == '/')
		s++;
	if (!*s || strlen(s) > 1000)
		fail("line %d: bad path '%s'", lineno, s);
	for (c = s;; c = p + 1) {
		for (p = c; *p && *p != '/'; p++)
			if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
				fail("line %d: bad path '%s'", lineno, s);
		if (p == c || (p - c == 1 && c[0] == '.') ||
		    (p - c == 2 && c[0] == '.' && c[1] == '.'))
			fail("line %d: bad path '%s'", lineno, s);
		if (!*p)
			break;
	}
	return s;
}

/* ---- the kernel's log, for the messages of a refused mount ---------------------- */

static int g_kmsg = -1;

/* Skip what the kernel logged so far. */
static void kmsg_mark(void)
{
	if (g_kmsg < 0)
		g_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (g_kmsg < 0)
		FAILE("open /dev/kmsg");
	if (lseek(g_kmsg, 0, SEEK_END) < 0)
		FAILE("lseek /dev/kmsg");
}

/* Record each ext4 or fscrypt message logged since kmsg_mark() as
 * "kmsg TAG HEXTEXT" (the text after the record's ';'). */
static void kmsg_record(const char *tag)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		const char *text;
		size_t i;

		n = read(g_kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		if (strncmp(text, "EXT4-fs", 7) && strncmp(text, "fscrypt", 7))
			continue;
		man_add("kmsg %s ", tag);
		for (i = 0; text[i] && text[i] != '\n'; i++)
			man_add("%02x", (unsigned char)text[i]);
		man_add("\n");
		say("e4dump-guest: kernel: %.*s", (int)strcspn(text, "\n"), text);
	}
}

/* mount-try TAG OPTS|-: try a mount with OPTS ("ro" among them means
 * MS_RDONLY), record "mount-try TAG OPTS ERRNO" (0: it mounted) and the
 * kernel's messages, unmount, then mount again as before (unless "@nomount"
 * left the image unmounted). */
static void cmd_mount_try(char **tok, int ntok, int lineno)
{
	char data[1024], opts[1024], *save = NULL, *o;
	unsigned long flags = 0;
	const char *tag;
	int e = 0, was_mounted = g_mounted;

	if (ntok != 3 || strlen(tok[2]) >= sizeof(opts))
		fail("line %d: usage: mount-try TAG OPTS|-", lineno);
	tag = parse_tag(tok[1], lineno);
	snprintf(opts, sizeof(opts), "%s", strcmp(tok[2], "-") ? tok[2] : "");
	data[0] = '\0';
	for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcmp(o, "ro")) {
			flags |= MS_RDONLY;
			continue;
		}
		snprintf(data + strlen(data), sizeof(data) - strlen(data), "%s%s",
			 data[0] ? "," : "", o);
	}
	umount_img(lineno);
	kmsg_mark();
	if (mount("/dev/vda", MNT, "ext4", flags, data[0] ? data : NULL) < 0)
		e = errno;
	else if (umount2(MNT, 0) < 0)
		FAILE("line %d: umount " MNT, lineno);
	kmsg_record(tag);
	man_add("mount-try %s %s %d\n", tag, tok[2], e);
	say("e4dump-guest: mount with '%s': %s", tok[2], e ? strerror(e) : "mounted");
	if (was_mounted)
		remount_img(lineno);
}

/* ---- keys in the filesystem's keyring (fskey-*) ------------------------------
 * Slots 1..8 remember a key added with FS_IOC_ADD_ENCRYPTION_KEY (v1: by
 * descriptor, root only; v2: by identifier) so that later lines can add it
 * again (as another user too), remove it and ask its status. */
#define FSKEY_SLOTS 8
static struct fskey {
	int used;
	struct e4_fscrypt_key_specifier spec;
	uint8_t raw[64];
	uint32_t size;
} g_fskey[FSKEY_SLOTS + 1];

static struct fskey *fskey_slot(const char *s, int lineno)
{
	unsigned long n = parse_num(s, FSKEY_SLOTS, lineno);

	if (n < 1)
		fail("line %d: key slot must be 1..%d", lineno, FSKEY_SLOTS);
	return &g_fskey[n];
}

/* 0 or errno; a v2 key's identifier is filled in */
static int fskey_add(struct fskey *k)
{
	struct {
		struct e4_fscrypt_add_key_arg a;
		uint8_t raw[64];
	} arg;
	int fd, e = 0;

	memset(&arg, 0, sizeof(arg));
	arg.a.key_spec = k->spec;
	arg.a.raw_size = k->size;
	memcpy(arg.raw, k->raw, k->size);
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_ADD_ENCRYPTION_KEY, &arg) < 0)
		e = errno;
	close(fd);
	if (!e)
		k->spec = arg.a.key_spec;
	memset(&arg, 0, sizeof(arg));
	return e;
}

static void man_spec(const struct fskey *k)
{
	man_hex(k->spec.u.identifier,
		k->spec.type == E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR ? 8 : 16);
}

/* fskey-add N v1 DESCHEX KEYHEX | fskey-add N v2 KEYHEX [again]: add a key
 * to the filesystem's keyring (root).  "again" re-adds slot N.  Records
 * "fskey-add N ERRNO SPECHEX". */
static void cmd_fskey_add(char **tok, int ntok, int lineno)
{
	struct fskey *k;
	int e;

	if (ntok < 3)
		goto usage;
	k = fskey_slot(tok[1], lineno);
	if (!strcmp(tok[2], "again")) {
		if (ntok != 3 || !k->used)
			goto usage;
	} else if (!strcmp(tok[2], "v1") && ntok == 5) {
		memset(k, 0, sizeof(*k));
		k->spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR;
		if (parse_hex(tok[3], k->spec.u.descriptor, 8, lineno) != 8)
			fail("line %d: descriptor must be 8 bytes", lineno);
		k->size = (uint32_t)parse_hex(tok[4], k->raw, sizeof(k->raw), lineno);
	} else if (!strcmp(tok[2], "v2") && ntok == 4) {
		memset(k, 0, sizeof(*k));
		k->spec.type = E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		k->size = (uint32_t)parse_hex(tok[3], k->raw, sizeof(k->raw), lineno);
	} else {
		goto usage;
	}
	k->used = 1;
	e = fskey_add(k);
	if (!e && k->spec.type == E4_FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER) {
		memcpy(g_last_id2, k->spec.u.identifier, 16);
		g_have_id2 = 1;
	}
	man_add("fskey-add %s %d ", tok[1], e);
	man_spec(k);
	man_add("\n");
	say("e4dump-guest: key slot %s added: %s", tok[1], e ? strerror(e) : "ok");
	return;
usage:
	fail("line %d: usage: fskey-add N v1 DESCHEX KEYHEX | N v2 KEYHEX | N again", lineno);
}

/* fskey-add-as N UID: add slot N's key again as user UID (a child process
 * with all its ids set to UID).  Records "fskey-add-as N UID ERRNO". */
static void cmd_fskey_add_as(char **tok, int ntok, int lineno)
{
	struct fskey *k;
	unsigned long uid;
	int status;
	pid_t pid;

	if (ntok != 3)
		fail("line %d: usage: fskey-add-as N UID", lineno);
	k = fskey_slot(tok[1], lineno);
	uid = parse_num(tok[2], 65534, lineno);
	if (!k->used)
		fail("line %d: key slot %s is empty", lineno, tok[1]);
	pid = fork();
	if (pid < 0)
		FAILE("fork");
	if (pid == 0) {
		if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) < 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
			_exit(255);
		_exit(fskey_add(k));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		fail("line %d: fskey-add-as: the child failed", lineno);
	man_add("fskey-add-as %s %lu %d\n", tok[1], uid, WEXITSTATUS(status));
}

/* fskey-remove TAG N [all]: FS_IOC_REMOVE_ENCRYPTION_KEY (_ALL_USERS).
 * Records "fskey-remove TAG ERRNO STATUSFLAGS". */
static void cmd_fskey_remove(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_remove_key_arg a;
	struct fskey *k;
	int fd, e = 0, all = ntok == 4 && !strcmp(tok[3], "all");

	if (ntok != 3 && !all)
		fail("line %d: usage: fskey-remove TAG N [all]", lineno);
	parse_tag(tok[1], lineno);
	k = fskey_slot(tok[2], lineno);
	memset(&a, 0, sizeof(a));
	a.key_spec = k->spec;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, all ? E4_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS : E4_IOC_REMOVE_ENCRYPTION_KEY,
		  &a) < 0)
		e = errno;
	close(fd);
	man_add("fskey-remove %s %d %u\n", tok[1], e, a.removal_status_flags);
}

/* fskey-status TAG N: FS_IOC_GET_ENCRYPTION_KEY_STATUS.
 * Records "fskey-status TAG ERRNO STATUS FLAGS USERS". */
static void cmd_fskey_status(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_get_key_status_arg a;
	int fd, e = 0;

	if (ntok != 3)
		fail("line %d: usage: fskey-status TAG N", lineno);
	parse_tag(tok[1], lineno);
	memset(&a, 0, sizeof(a));
	a.key_spec = fskey_slot(tok[2], lineno)->spec;
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open " MNT);
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_KEY_STATUS, &a) < 0)
		e = errno;
	close(fd);
	man_add("fskey-status %s %d %u %u %u\n", tok[1], e, a.status, a.status_flags,
		a.user_count);
}

static void join(char *out, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n)
		fail("path too long: %s/%s", dir, name);
}

/* proc TAG PATH: the first word of /proc/PATH (e.g. sys/crypto/fips_enabled);
 * records "proc TAG WORD", "-" when it cannot be read. */
static void cmd_proc(char **tok, int ntok, int lineno)
{
	char p[300], w[64] = "-";
	const char *c;
	FILE *f;

	if (ntok != 3 || strlen(tok[2]) > 200)
		fail("line %d: usage: proc TAG PATH", lineno);
	for (c = tok[2]; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("/_-.", *c))
			fail("line %d: bad /proc path %s", lineno, tok[2]);
	snprintf(p, sizeof(p), "/proc/%s", tok[2]);
	f = fopen(p, "re");
	if (f) {
		if (fscanf(f, "%63s", w) != 1)
			snprintf(w, sizeof(w), "-");
		fclose(f);
	}
	man_add("proc %s %s\n", parse_tag(tok[1], lineno), w);
}

/* touch-names DIR NAMEHEX...: create each name (hex bytes) in the existing
 * directory DIR as an empty regular file 0644 (O_EXCL); not in the manifest.
 * Records "touched PATHHEX ERRNO". */
static void cmd_touch_names(char **tok, int ntok, int lineno)
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
static void cmd_stat_name(char **tok, int ntok, int lineno)
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
static void cmd_unlink_name(char **tok, int ntok, int lineno)
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

/* policy-try TAG DIR 1|2 CMODE FMODE FLAGS: make the empty directory DIR, try
 * to set a policy (v1: descriptor 00..07; v2: identifier 0, no key added) and
 * record "policy-try TAG ERRNO" (0: it was set). */
static void cmd_policy_try(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 p1;
	struct e4_fscrypt_policy_v2 p2;
	const char *tag, *dir;
	unsigned long ver, cmode, fmode, pflags;
	char p[4200];
	int fd, r, e = 0;

	if (ntok != 7)
		fail("line %d: usage: policy-try TAG DIR 1|2 CMODE FMODE FLAGS", lineno);
	tag = parse_tag(tok[1], lineno);
	dir = parse_relpath(tok[2], lineno);
	ver = parse_num(tok[3], 2, lineno);
	cmode = parse_num(tok[4], 255, lineno);
	fmode = parse_num(tok[5], 255, lineno);
	pflags = parse_num(tok[6], 255, lineno);
	if (ver != 1 && ver != 2)
		fail("line %d: policy version must be 1 or 2", lineno);
	abs_path(p, sizeof(p), dir);
	if (mkdir(p, 0755) < 0)
		FAILE("line %d: mkdir %s", lineno, p);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("line %d: open %s", lineno, p);
	if (ver == 1) {
		memset(&p1, 0, sizeof(p1));
		for (r = 0; r < 8; r++)
			p1.master_key_descriptor[r] = (uint8_t)r;
		p1.contents_encryption_mode = (uint8_t)cmode;
		p1.filenames_encryption_mode = (uint8_t)fmode;
		p1.flags = (uint8_t)pflags;
		r = ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &p1);
	} else {
		memset(&p2, 0, sizeof(p2));
		p2.version = 2;
		p2.contents_encryption_mode = (uint8_t)cmode;
		p2.filenames_encryption_mode = (uint8_t)fmode;
		p2.flags = (uint8_t)pflags;
		r = ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &p2);
	}
	if (r < 0)
		e = errno;
	close(fd);
	man_add("policy-try %s %d\n", tag, e);
	say("e4dump-guest: policy v%lu %lu/%lu flags %lu on %s: %s", ver, cmode, fmode,
	    pflags, p, e ? strerror(e) : "set");
}

struct dent {
	char *name;
	unsigned char type; /* DT_* */
	uint64_t ino;
};

/* all entries of /mnt/REL except . and .., in readdir order */
static struct dent *list_dir(const char *rel, size_t *count)
{
	char p[4200];
	DIR *d;
	struct dirent *de;
	struct dent *v = NULL;
	size_t n = 0, cap = 0;

	abs_path(p, sizeof(p), rel);
	d = opendir(p);
	if (!d)
		FAILE("opendir %s", p);
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				FAILE("readdir %s", p);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				fail("out of memory (readdir)");
		}
		v[n].name = xstrdup(de->d_name);
		v[n].type = de->d_type;
		v[n].ino = de->d_ino;
		if (v[n].type == DT_UNKNOWN) {
			char q[4200];
			struct stat st;

			join(q, sizeof(q), p, de->d_name);
			if (lstat(q, &st) == 0)
				v[n].type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
					    S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
		}
		n++;
	}
	closedir(d);
	*count = n;
	return v;
}

static void free_list(struct dent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static struct entry *find_entry(const char *rel)
{
	size_t i;

	for (i = 0; i < g_nent; i++)
		if (!g_ent[i].gone && !strcmp(g_ent[i].rel, rel))
			return &g_ent[i];
	return NULL;
}

/* Turn a path written with the plaintext names of the manifest into a path
 * that works now: components that cannot be looked up by name (an encrypted
 * directory without its key) are replaced by the name readdir returns for the
 * inode the manifest entry had.  Records "resolved PLAINHEX PATHHEX" when the
 * path changed. */
static void resolve(const char *plain, char *out, size_t outsz, int lineno)
{
	char cur[4096] = "", pre[4096] = "", cand[4096], p[4200];
	const char *c = plain, *slash;
	struct stat st;
	int changed = 0;

	abs_path(p, sizeof(p), plain);
	if (lstat(p, &st) == 0) {
		if ((size_t)snprintf(out, outsz, "%s", plain) >= outsz)
			fail("path too long");
		return;
	}
	for (;;) {
		char comp[256];
		size_t len;

		slash = strchr(c, '/');
		len = slash ? (size_t)(slash - c) : strlen(c);
		if (len >= sizeof(comp))
			fail("line %d: path component too long", lineno);
		memcpy(comp, c, len);
		comp[len] = '\0';
		if ((size_t)snprintf(pre, sizeof(pre), "%.*s", (int)(c - plain + len), plain) >=
		    sizeof(pre))
			fail("path too long");
		if (cur[0])
			join(cand, sizeof(cand), cur, comp);
		else
			snprintf(cand, sizeof(cand), "%s", comp);
		abs_path(p, sizeof(p), cand);
		if (lstat(p, &st) == 0) {
			memcpy(cur, cand, sizeof(cur));
		} else {
			struct entry *e = find_entry(pre);
			struct dent *v;
			size_t n, i;

			if (!e || !e->ino)
				fail("line %d: cannot resolve %s: %s/%s not found (errno %d) and "
				     "%s is not in the manifest", lineno, plain, MNT, cand, errno, pre);
			v = list_dir(cur[0] ? cur : ".", &n);
			for (i = 0; i < n && v[i].ino != e->ino; i++)
				;
			if (i == n)
				fail("line %d: cannot resolve %s: no entry with inode %" PRIu64
				     " in %s/%s", lineno, plain, e->ino, MNT, cur);
			if (cur[0])
				join(cand, sizeof(cand), cur, v[i].name);
			else
				snprintf(cand, sizeof(cand), "%s", v[i].name);
			memcpy(cur, cand, sizeof(cur));
			free_list(v, n);
			changed = 1;
		}
		if (!slash)
			break;
		c = slash + 1;
	}
	if ((size_t)snprintf(out, outsz, "%s", cur) >= outsz)
		fail("path too long");
	if (changed) {
		man_add("resolved ");
		man_hex(plain, strlen(plain));
		man_add(" ");
		man_hex(cur, strlen(cur));
		man_add("\n");
	}
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

static void cmd_readdir(char **tok, int ntok, int lineno)
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

/* the path recorded by the last unlink-first of each tag */
#define MAX_UNLINKED 64
static char *g_unl_tag[MAX_UNLINKED], *g_unl_path[MAX_UNLINKED];
static int g_nunl;

/* index of the first regular file in v[0..n), for a command that needs one */
static size_t first_regular(const struct dent *v, size_t n, const char *cmd,
			    const char *rel, int lineno)
{
	size_t i;

	for (i = 0; i < n && v[i].type != DT_REG; i++)
		;
	if (i == n)
		fail("line %d: %s: no regular file in %s/%s", lineno, cmd, MNT, rel);
	return i;
}

/* nokey-ops TAG DIR: without the key, the operations fscrypt.rst says fail
 * with ENOKEY in an encrypted directory: create, mkdir, symlink, mknod,
 * O_TMPFILE, link (of DIR's first regular file, into DIR), rename (of that
 * file within DIR and out of it), truncate.  Records "nokey-op TAG OP ERRNO"
 * per operation (0: it succeeded, which the run then undoes no further). */
static void cmd_nokey_ops(char **tok, int ntok, int lineno)
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

/* ---- open files across a key removal; dentries across a key addition -------- */
#define HELD_MAX 8
static struct held {
	char tag[65];
	int fd;
} g_held[HELD_MAX];

static struct held *held_find(const char *tag, int create, int lineno)
{
	int i;

	for (i = 0; i < HELD_MAX; i++)
		if (g_held[i].tag[0] && !strcmp(g_held[i].tag, tag))
			return &g_held[i];
	if (create)
		for (i = 0; i < HELD_MAX; i++)
			if (!g_held[i].tag[0]) {
				snprintf(g_held[i].tag, sizeof(g_held[i].tag), "%s", tag);
				return &g_held[i];
			}
	fail("line %d: %s: %s", lineno, tag, create ? "too many held files" : "not held");
}

/* FNV-1a-64 of the first 64 KiB of fd, or errno as a negative number */
static int64_t held_digest(int fd, uint64_t *h)
{
	static unsigned char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n < 0)
		return -errno;
	*h = 0xcbf29ce484222325ull;
	for (ssize_t i = 0; i < n; i++)
		*h = (*h ^ buf[i]) * 0x100000001b3ull;
	return n;
}

static void held_record(const char *what, const char *tag, int fd)
{
	uint64_t h = 0;
	int64_t n = held_digest(fd, &h);

	man_add("%s %s %d %" PRId64 " %016" PRIx64 "\n", what, tag, n < 0 ? (int)-n : 0,
		n < 0 ? 0 : n, h);
}

/* hold TAG PATH: open /mnt/PATH and keep it open; records "held TAG ERRNO
 * NBYTES FNV" of what it reads now.  read-held TAG: read it again,
 * "read-held TAG ERRNO NBYTES FNV".  release TAG: close it. */
static void cmd_hold(char **tok, int ntok, int lineno)
{
	struct held *h;
	char p[4200];

	if (ntok != 3)
		fail("line %d: usage: hold TAG PATH", lineno);
	h = held_find(parse_tag(tok[1], lineno), 1, lineno);
	abs_path(p, sizeof(p), parse_relpath(tok[2], lineno));
	h->fd = open(p, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
		FAILE("line %d: open %s", lineno, p);
	held_record("held", tok[1], h->fd);
}

static void cmd_read_held(char **tok, int ntok, int lineno)
{
	if (ntok != 2)
		fail("line %d: usage: read-held TAG", lineno);
	held_record("read-held", tok[1], held_find(tok[1], 0, lineno)->fd);
}

static void cmd_release(char **tok, int ntok, int lineno)
{
	struct held *h;

	if (ntok != 2)
		fail("line %d: usage: release TAG", lineno);
	h = held_find(tok[1], 0, lineno);
	close(h->fd);
	h->tag[0] = 0;
}

/* remember TAG DIR: readdir /mnt/DIR, take its first regular file's name
 * (a no-key name when the key is absent) and lstat it, creating its dentry;
 * records "remember TAG INO ERRNO".  recheck TAG (after the key is added):
 * lstat that name again (records "recheck TAG nokey ERRNO": a no-key dentry
 * must not survive the key), then find the same inode in a new readdir and
 * lstat it by the name now listed ("recheck TAG plain ERRNO SAMENAME": 1
 * if the listed name is still the old one). */
static struct remembered {
	char tag[65], dir[4096], name[256];
	uint64_t ino;
} g_remembered[HELD_MAX];

static void cmd_remember(char **tok, int ntok, int lineno)
{
	struct remembered *r = NULL;
	char rel[4096], sub[4096], p[4200];
	struct dent *v;
	struct stat st;
	size_t n, i;
	int e = 0;

	if (ntok != 3)
		fail("line %d: usage: remember TAG DIR", lineno);
	parse_tag(tok[1], lineno);
	for (i = 0; i < HELD_MAX && !r; i++)
		if (!g_remembered[i].tag[0])
			r = &g_remembered[i];
	if (!r)
		fail("line %d: too many remember lines", lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	v = list_dir(rel, &n);
	i = first_regular(v, n, "remember", rel, lineno);
	snprintf(r->tag, sizeof(r->tag), "%s", tok[1]);
	snprintf(r->dir, sizeof(r->dir), "%s", rel);
	snprintf(r->name, sizeof(r->name), "%s", v[i].name);
	join(sub, sizeof(sub), rel, v[i].name);
	abs_path(p, sizeof(p), sub);
	if (lstat(p, &st) < 0)
		e = errno;
	r->ino = e ? 0 : st.st_ino;
	free_list(v, n);
	man_add("remember %s %llu %d\n", r->tag, (unsigned long long)r->ino, e);
}

static void cmd_recheck(char **tok, int ntok, int lineno)
{
	struct remembered *r = NULL;
	char sub[4096], p[4200];
	struct dent *v;
	struct stat st;
	size_t n, i;
	int e = 0;

	if (ntok != 2)
		fail("line %d: usage: recheck TAG", lineno);
	for (i = 0; i < HELD_MAX && !r; i++)
		if (!strcmp(g_remembered[i].tag, tok[1]))
			r = &g_remembered[i];
	if (!r)
		fail("line %d: recheck %s: nothing remembered", lineno, tok[1]);
	join(sub, sizeof(sub), r->dir, r->name);
	abs_path(p, sizeof(p), sub);
	if (lstat(p, &st) < 0)
		e = errno;
	man_add("recheck %s nokey %d 0\n", r->tag, e);
	v = list_dir(r->dir, &n);
	for (i = 0; i < n && v[i].ino != r->ino; i++)
		;
	if (i == n) {
		man_add("recheck %s plain %d 0\n", r->tag, ENOENT);
	} else {
		join(sub, sizeof(sub), r->dir, v[i].name);
		abs_path(p, sizeof(p), sub);
		e = lstat(p, &st) < 0 ? errno : st.st_ino != r->ino ? ESTALE : 0;
		man_add("recheck %s plain %d %d\n", r->tag, e, !strcmp(v[i].name, r->name));
	}
	free_list(v, n);
}

static void cmd_unlink_first(char **tok, int ntok, int lineno)
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

static void cmd_exists(char **tok, int ntok, int lineno)
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

static void cmd_policy_nonempty(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 pol;
	const char *dir;
	char p[4200], f[4200];
	int fd, e = 0;

	if (ntok != 3)
		fail("line %d: usage: policy-nonempty DIR DESCHEX", lineno);
	dir = parse_relpath(tok[1], lineno);
	memset(&pol, 0, sizeof(pol));
	if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
		fail("line %d: descriptor must be 8 bytes", lineno);
	pol.contents_encryption_mode = 1;
	pol.filenames_encryption_mode = 4;
	abs_path(p, sizeof(p), dir);
	if (mkdir(p, 0755) < 0)
		FAILE("line %d: mkdir %s", lineno, p);
	join(f, sizeof(f), p, "file");
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd) < 0)
		FAILE("line %d: create %s", lineno, f);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("line %d: open %s", lineno, p);
	if (ioctl(fd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		e = errno;
	close(fd);
	man_add("policy-nonempty %s %d\n", dir, e);
	say("e4dump-guest: policy on non-empty %s: %s", p, e ? strerror(e) : "succeeded");
}

/* 0 or errno; *size = policy size */
static int get_policy_fd(int fd, struct e4_get_policy_ex_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->policy_size = sizeof(a->policy);
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_POLICY_EX, a) < 0)
		return errno;
	if (a->policy_size > sizeof(a->policy))
		return EOVERFLOW;
	return 0;
}

static int get_policy(const char *rel, int is_dir, struct e4_get_policy_ex_arg *a)
{
	char p[4200];
	int fd, e;

	abs_path(p, sizeof(p), rel);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return errno;
	e = get_policy_fd(fd, a);
	close(fd);
	return e;
}

struct inherit_state {
	const char *tag;
	struct e4_get_policy_ex_arg root;
	size_t total, same, symlinks;
	char *diffs; /* "inherit-diff" lines, appended after the summary */
	size_t dlen;
};

static void inherit_rec(struct inherit_state *s, const char *rel)
{
	size_t n, i;
	struct dent *v = list_dir(rel, &n);
	char sub[4096];

	for (i = 0; i < n; i++) {
		struct e4_get_policy_ex_arg a;
		int e;

		join(sub, sizeof(sub), rel, v[i].name);
		if (v[i].type == DT_LNK) {
			s->symlinks++;
			continue;
		}
		if (v[i].type != DT_DIR && v[i].type != DT_REG)
			continue;
		s->total++;
		e = get_policy(sub, v[i].type == DT_DIR, &a);
		if (!e && a.policy_size == s->root.policy_size &&
		    !memcmp(a.policy, s->root.policy, a.policy_size)) {
			s->same++;
		} else {
			size_t need = 64 + 2 * strlen(sub) + strlen(s->tag);
			size_t k;

			s->diffs = realloc(s->diffs, s->dlen + need);
			if (!s->diffs)
				fail("out of memory");
			s->dlen += sprintf(s->diffs + s->dlen, "inherit-diff %s ", s->tag);
			for (k = 0; sub[k]; k++)
				s->dlen += sprintf(s->diffs + s->dlen, "%02x", (unsigned char)sub[k]);
			s->dlen += sprintf(s->diffs + s->dlen, " %d\n", e);
		}
		if (v[i].type == DT_DIR)
			inherit_rec(s, sub);
	}
	free_list(v, n);
}

static void cmd_inherit(char **tok, int ntok, int lineno)
{
	struct inherit_state s;
	char rel[4096];
	int e;

	if (ntok != 3)
		fail("line %d: usage: inherit TAG DIR", lineno);
	memset(&s, 0, sizeof(s));
	s.tag = parse_tag(tok[1], lineno);
	resolve(parse_relpath(tok[2], lineno), rel, sizeof(rel), lineno);
	e = get_policy(rel, 1, &s.root);
	if (e)
		fail_errno(e, "line %d: FS_IOC_GET_ENCRYPTION_POLICY_EX on %s/%s", lineno, MNT, rel);
	inherit_rec(&s, rel);
	man_add("inherit %s %zu %zu\n", s.tag, s.total, s.same);
	man_add("inherit-symlinks %s %zu\n", s.tag, s.symlinks);
	if (s.dlen)
		man_add("%.*s", (int)s.dlen, s.diffs);
	free(s.diffs);
	say("e4dump-guest: inherit %s: %zu of %zu same policy, %zu symlinks", rel, s.same,
	    s.total, s.symlinks);
}

static void cmd_dummy_tree(char **tok, int ntok, int lineno)
{
	struct e4_get_policy_ex_arg a;
	const char *dir;
	size_t first = g_nent;
	int e;

	if (ntok < 2)
		fail("line %d: usage: dummy-tree DIR [small] [big]", lineno);
	dir = parse_dir(tok[1], lineno);
	start_tree(dir);
	mk_dir(NULL, 0755);
	e = get_policy(dir, 1, &a);
	if (e)
		fail_errno(e, "line %d: %s/%s has no encryption policy (mount with "
			   "test_dummy_encryption first)", lineno, MNT, dir);
	man_add("tree %s dummy", dir);
	for (int i = 2; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\ndummy-policy %s ", dir);
	man_hex(a.policy, a.policy_size);
	man_add("\n");
	populate(tok + 2, ntok - 2, lineno);
	finish_tree(first);
}

/* entries added to an existing tree later: set g_tree/g_time_base for the
 * tree that REL belongs to; *sub = REL inside the tree */
static size_t late_begin(const char *rel, const char **sub, int lineno)
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
static void late_end(size_t first)
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

static void cmd_mkdir(char **tok, int ntok, int lineno)
{
	const char *sub;
	size_t first;

	if (ntok != 2)
		fail("line %d: usage: mkdir TREE/DIR", lineno);
	first = late_begin(parse_relpath(tok[1], lineno), &sub, lineno);
	mk_dir(sub, 0755);
	late_end(first);
}

/* name number i (from 0) of bigdir-names: length 1 + i % 255, first byte
 * ALNUM62[i / 255], then "abcdefghijklmnopqrstuvwxyz0123456789" cycled by
 * byte position (as mkname) */
static void bigdir_name(char *buf, size_t i)
{
	static const char alnum[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	char prefix[2] = { alnum[i / 255], '\0' };

	mkname(buf, prefix, 1 + i % 255);
}

static void cmd_bigdir_names(char **tok, int ntok, int lineno)
{
	const char *rel, *sub;
	char p[4200], name[256], path[4096];
	struct stat st;
	size_t first, i, count;

	if (ntok != 3)
		fail("line %d: usage: bigdir-names TREE/DIR COUNT", lineno);
	rel = parse_relpath(tok[1], lineno);
	count = parse_num(tok[2], 62 * 255, lineno);
	abs_path(p, sizeof(p), rel);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		fail("line %d: %s is not an existing directory", lineno, p);
	first = late_begin(rel, &sub, lineno);
	if (!find_entry(rel))
		fail("line %d: %s is not in the manifest (create it with mkdir)", lineno, rel);
	for (i = 0; i < count; i++) {
		bigdir_name(name, i);
		join(path, sizeof(path), sub, name);
		mk_file(path, 0644, 0);
	}
	late_end(first);
}

/* files TREE/DIR NAMEHEX...: regular files 0644 with the given names (hex
 * bytes), of size = the name's length, in an existing manifest directory */
static void cmd_files(char **tok, int ntok, int lineno)
{
	const char *rel, *sub;
	char p[4200], name[256], path[4096];
	struct stat st;
	size_t first, len;

	if (ntok < 3)
		fail("line %d: usage: files TREE/DIR NAMEHEX...", lineno);
	rel = parse_relpath(tok[1], lineno);
	abs_path(p, sizeof(p), rel);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		fail("line %d: %s is not an existing directory", lineno, p);
	first = late_begin(rel, &sub, lineno);
	if (!find_entry(rel))
		fail("line %d: %s is not in the manifest", lineno, rel);
	for (int i = 2; i < ntok; i++) {
		len = parse_hex(tok[i], (unsigned char *)name, 255, lineno);
		name[len] = '\0';
		if (strlen(name) != len || strchr(name, '/') || !strcmp(name, ".") ||
		    !strcmp(name, ".."))
			fail("line %d: bad file name %s", lineno, tok[i]);
		join(path, sizeof(path), sub, name);
		mk_file(path, 0644, len);
	}
	late_end(first);
}

/* ---- deletions for the undelete scenarios ------------------------------------
 * sync, unlink, rmtree, churn, sparse (vm/README.md, "Deletions").  unlink
 * and rmtree record where each removed inode's blocks were (FS_IOC_FIEMAP,
 * with the key present) before removing it, so that the host knows, without
 * e4dump, which blocks a deleted file had and, with the final block bitmap,
 * which of them the kernel allocated again. */

static void sync_mnt(void)
{
	int fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		FAILE("open " MNT);
	if (syncfs(fd) < 0)
		FAILE("syncfs " MNT);
	close(fd);
}

/* syncfs, then evict every clean, unused dentry and inode */
static void drop_caches(void)
{
	int fd;

	sync_mnt();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1)
		FAILE("write /proc/sys/vm/drop_caches");
	close(fd);
}

/* sync: syncfs(/mnt), which commits the running journal transaction.
 * Records "sync". */
static void cmd_sync(char **tok, int ntok, int lineno)
{
	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: sync", lineno);
	sync_mnt();
	man_add("sync\n");
}

/* a manifest path written with %HH escapes for bytes outside [A-Za-z0-9._-/]
 * (e.g. "pad4/sparse%20file"); no empty, "." or ".." component, no NUL */
static void parse_plainpath(const char *s, char *out, size_t n, int lineno)
{
	size_t o = 0;
	const char *c;

	if (*s == '/')
		s++;
	for (; *s; s++) {
		int ch = (unsigned char)*s;

		if (ch == '%') {
			int hi = hexval((unsigned char)s[1]), lo = hi < 0 ? -1 : hexval((unsigned char)s[2]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				fail("line %d: bad %%HH escape in '%s'", lineno, s);
			ch = hi << 4 | lo;
			s += 2;
		} else if (!isalnum(ch) && !strchr("._-/", ch)) {
			fail("line %d: write byte 0x%02x of a path as %%%02x", lineno, ch, ch);
		}
		if (o + 1 >= n)
			fail("line %d: path too long", lineno);
		out[o++] = (char)ch;
	}
	out[o] = '\0';
	for (c = out;; c = strchr(c, '/') + 1) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			fail("line %d: bad path '%s'", lineno, out);
		if (!c[len])
			break;
	}
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

/* churn DIR COUNT SIZE: in /mnt/DIR (made if missing, not in the manifest),
 * COUNT new files of SIZE bytes, each written and fsync'd (one journal
 * transaction each), until ENOSPC at most.  Records "churn DIR COUNT SIZE
 * WRITTEN". */
static void cmd_churn(char **tok, int ntok, int lineno)
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
static void cmd_sparse(char **tok, int ntok, int lineno)
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

/* ---- bench-tree: the benchmark's twin tree (bench/README.md) -----------------
 * bench-tree DIR plain|DESCHEX CMODE FMODE FLAGS LARGE SMALL DIRS MANY FEW
 * Under TCG every system call costs, so this writes with as few as it can:
 * the large file in 1 MiB writes of a pattern generated once, each small file
 * as openat + one write + close, each empty file as one mknodat, all relative
 * to an open directory (no path walk, which in an encrypted directory means
 * encrypting every component again).  Nothing is timed, chmod-ed or read back
 * per entry; the manifest gets one record of counts.  The contents depend
 * only on the path inside DIR, so two bench-trees with the same numbers hold
 * the same names and bytes (vm/README.md, "Bench trees"). */

#define BENCH_CHUNK ((size_t)1 << 20)
#define BENCH_SMALL_MIN 1024
#define BENCH_SMALL_MAX 16384

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/* Every BENCH_SETTLE entries: write everything back and drop the clean
 * dentries and inodes.  Each new inode of an encrypted tree holds its own
 * key and cipher objects, the tiny kernel's SLOB allocator slows down as the
 * objects pile up, and 512 MiB do not hold 140,000 of them. */
#define BENCH_SETTLE 4096

static void bench_settle(int dfd)
{
	static int warned;
	int fd;

	if (syncfs(dfd) < 0)
		FAILE("syncfs");
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1) {
		if (!warned)
			say("e4dump-guest: note: cannot drop caches: %s", strerror(errno));
		warned = 1;
	}
	if (fd >= 0)
		close(fd);
}

static int bench_mkdirat(int dfd, const char *name, const char *what)
{
	int fd;

	if (mkdirat(dfd, name, 0755) < 0)
		FAILE("mkdir %s/%s", what, name);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("open %s/%s", what, name);
	return fd;
}

/* large.bin: block at offset OFF (4 KiB) = pattern[OFF % 1 MiB ...] with its
 * first 8 bytes replaced by OFF (little-endian), so that no two blocks of the
 * file are equal */
static void bench_large(int dfd, const char *dir, const unsigned char *pat, uint64_t size)
{
	unsigned char *buf = xmalloc(BENCH_CHUNK);
	uint64_t off;
	int fd;

	memcpy(buf, pat, BENCH_CHUNK);
	fd = openat(dfd, "large.bin", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		FAILE("create %s/large.bin", dir);
	for (off = 0; off < size; off += BENCH_CHUNK) {
		size_t n = size - off < BENCH_CHUNK ? (size_t)(size - off) : BENCH_CHUNK;

		for (size_t b = 0; b < n; b += 4096)
			put_le64(buf + b, off + b);
		write_all(fd, buf, n, (off_t)off, "large.bin");
	}
	if (close(fd) < 0)
		FAILE("close %s/large.bin", dir);
	free(buf);
}

/* small/dDDD/file-NNNNNN.dat: file N (from 0) in directory N / ceil(SMALL /
 * DIRS); its size is 1024 + splitmix64(state = N) % 15361 bytes, its bytes
 * pattern[(N * 4099) % 1 MiB ...] with the first 8 replaced by N */
static uint64_t bench_small(int dfd, const char *dir, const unsigned char *pat,
			    size_t nfiles, size_t ndirs)
{
	unsigned char buf[BENCH_SMALL_MAX];
	size_t per = ndirs ? (nfiles + ndirs - 1) / ndirs : 0, i = 0;
	uint64_t total = 0;
	int sfd = bench_mkdirat(dfd, "small", dir);

	for (size_t d = 0; d < ndirs; d++) {
		char name[32];
		int ddir;

		snprintf(name, sizeof(name), "d%03zu", d);
		ddir = bench_mkdirat(sfd, name, dir);
		for (; i < nfiles && i < (d + 1) * per; i++) {
			uint64_t st = i;
			size_t size = BENCH_SMALL_MIN +
				      (size_t)(splitmix64(&st) % (BENCH_SMALL_MAX - BENCH_SMALL_MIN + 1));
			int fd;

			memcpy(buf, pat + (i * 4099) % BENCH_CHUNK, size);
			put_le64(buf, i);
			snprintf(name, sizeof(name), "file-%06zu.dat", i);
			fd = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0)
				FAILE("create %s/small/d%03zu/%s", dir, d, name);
			write_all(fd, buf, size, 0, name);
			if (close(fd) < 0)
				FAILE("close %s", name);
			total += size;
			if ((i + 1) % BENCH_SETTLE == 0)
				bench_settle(dfd);
		}
		close(ddir);
	}
	close(sfd);
	return total;
}

/* SUB/empty-NNNNNNN: COUNT empty regular files, one mknodat each */
static void bench_empty(int dfd, const char *dir, const char *sub, size_t count)
{
	char name[32];
	int efd = bench_mkdirat(dfd, sub, dir);

	for (size_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "empty-%07zu", i);
		if (mknodat(efd, name, S_IFREG | 0644, 0) < 0)
			FAILE("mknod %s/%s/%s", dir, sub, name);
		if ((i + 1) % BENCH_SETTLE == 0)
			bench_settle(efd);
	}
	close(efd);
}

static void cmd_bench_tree(char **tok, int ntok, int lineno)
{
	static unsigned char *pat;
	struct e4_fscrypt_policy_v1 pol, got;
	const char *dir;
	char p[4200];
	int enc, dfd, a;
	uint64_t large, small_bytes;
	size_t nsmall, ndirs, many, few;
	double t0, t1, t2, t3;

	if (ntok < 3)
		goto usage;
	enc = strcmp(tok[2], "plain") != 0;
	a = enc ? 6 : 3;
	if (ntok != a + 5)
		goto usage;
	dir = parse_dir(tok[1], lineno);
	large = parse_num(tok[a], (unsigned long)1 << 40, lineno);
	nsmall = parse_num(tok[a + 1], 999999, lineno);
	ndirs = parse_num(tok[a + 2], 999, lineno);
	many = parse_num(tok[a + 3], 9999999, lineno);
	few = parse_num(tok[a + 4], 9999999, lineno);
	if (nsmall && !ndirs)
		fail("line %d: bench-tree: %zu small files in 0 directories", lineno, nsmall);
	if (!pat)
		pat = gen_content(fnv1a64("bench pattern"), BENCH_CHUNK + BENCH_SMALL_MAX);

	abs_path(p, sizeof(p), dir);
	if (mkdir(p, 0755) < 0)
		FAILE("mkdir %s", p);
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		FAILE("open %s", p);
	if (enc) {
		memset(&pol, 0, sizeof(pol));
		if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
			fail("line %d: descriptor must be 8 bytes", lineno);
		pol.contents_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
		pol.filenames_encryption_mode = (uint8_t)parse_num(tok[4], 255, lineno);
		pol.flags = (uint8_t)parse_num(tok[5], 255, lineno);
		if (ioctl(dfd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
			FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY on %s", lineno, p);
		memset(&got, 0xff, sizeof(got));
		if (ioctl(dfd, E4_IOC_GET_ENCRYPTION_POLICY, &got) < 0 ||
		    memcmp(&got, &pol, sizeof(pol)))
			fail("line %d: policy read back from %s differs", lineno, p);
	}

	/* progress on the console: the guest's clock, a few lines per tree */
	t0 = mono_now();
	bench_large(dfd, p, pat, large);
	bench_settle(dfd);
	t1 = mono_now();
	say("e4dump-guest: bench-tree %s: large.bin, %" PRIu64 " bytes, %.1f s", dir, large,
	    t1 - t0);
	small_bytes = bench_small(dfd, p, pat, nsmall, ndirs);
	bench_settle(dfd);
	t2 = mono_now();
	say("e4dump-guest: bench-tree %s: %zu small files, %" PRIu64 " bytes, %.1f s", dir,
	    nsmall, small_bytes, t2 - t1);
	bench_empty(dfd, p, "empty-many", many);
	bench_settle(dfd);
	t3 = mono_now();
	bench_empty(dfd, p, "empty-few", few);
	bench_settle(dfd);
	close(dfd);
	say("e4dump-guest: bench-tree %s: %zu + %zu empty files, %.1f + %.1f s", dir, many, few,
	    t3 - t2, mono_now() - t3);
	man_add("bench-tree %s ", dir);
	if (enc)
		man_add("enc %s %u %u %u", tok[2], pol.contents_encryption_mode,
			pol.filenames_encryption_mode, pol.flags);
	else
		man_add("plain");
	man_add(" %" PRIu64 " %zu %zu %zu %zu %" PRIu64 "\n", large, nsmall, ndirs, many, few,
		small_bytes);
	return;
usage:
	fail("line %d: usage: bench-tree DIR plain|DESCHEX CMODE FMODE FLAGS LARGE SMALL DIRS "
	     "MANY FEW", lineno);
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
			else if (!strcmp(tok[0], "key2"))
				cmd_key2(tok, ntok, lineno);
			else if (!strcmp(tok[0], "tree2"))
				cmd_tree2(tok, ntok, lineno);
			else if (!strcmp(tok[0], "plain"))
				cmd_plain(tok, ntok, lineno);
			else if (!strcmp(tok[0], "remount"))
				cmd_remount(tok, ntok, lineno);
			else if (!strcmp(tok[0], "mount-try"))
				cmd_mount_try(tok, ntok, lineno);
			else if (!strcmp(tok[0], "policy-try"))
				cmd_policy_try(tok, ntok, lineno);
			else if (!strcmp(tok[0], "fskey-add"))
				cmd_fskey_add(tok, ntok, lineno);
			else if (!strcmp(tok[0], "fskey-add-as"))
				cmd_fskey_add_as(tok, ntok, lineno);
			else if (!strcmp(tok[0], "fskey-remove"))
				cmd_fskey_remove(tok, ntok, lineno);
			else if (!strcmp(tok[0], "fskey-status"))
				cmd_fskey_status(tok, ntok, lineno);
			else if (!strcmp(tok[0], "hold"))
				cmd_hold(tok, ntok, lineno);
			else if (!strcmp(tok[0], "read-held"))
				cmd_read_held(tok, ntok, lineno);
			else if (!strcmp(tok[0], "release"))
				cmd_release(tok, ntok, lineno);
			else if (!strcmp(tok[0], "remember"))
				cmd_remember(tok, ntok, lineno);
			else if (!strcmp(tok[0], "recheck"))
				cmd_recheck(tok, ntok, lineno);
			else if (!strcmp(tok[0], "proc"))
				cmd_proc(tok, ntok, lineno);
			else if (!strcmp(tok[0], "nokey-ops"))
				cmd_nokey_ops(tok, ntok, lineno);
			else if (!strcmp(tok[0], "touch-names"))
				cmd_touch_names(tok, ntok, lineno);
			else if (!strcmp(tok[0], "stat-name"))
				cmd_stat_name(tok, ntok, lineno);
			else if (!strcmp(tok[0], "unlink-name"))
				cmd_unlink_name(tok, ntok, lineno);
			else if (!strcmp(tok[0], "forget-keys"))
				cmd_forget_keys(tok, ntok, lineno);
			else if (!strcmp(tok[0], "readdir"))
				cmd_readdir(tok, ntok, lineno);
			else if (!strcmp(tok[0], "lookup-all"))
				probe_all(tok, ntok, lineno, 0);
			else if (!strcmp(tok[0], "open-all"))
				probe_all(tok, ntok, lineno, 1);
			else if (!strcmp(tok[0], "unlink-first"))
				cmd_unlink_first(tok, ntok, lineno);
			else if (!strcmp(tok[0], "exists"))
				cmd_exists(tok, ntok, lineno);
			else if (!strcmp(tok[0], "policy-nonempty"))
				cmd_policy_nonempty(tok, ntok, lineno);
			else if (!strcmp(tok[0], "inherit"))
				cmd_inherit(tok, ntok, lineno);
			else if (!strcmp(tok[0], "dummy-tree"))
				cmd_dummy_tree(tok, ntok, lineno);
			else if (!strcmp(tok[0], "mkdir"))
				cmd_mkdir(tok, ntok, lineno);
			else if (!strcmp(tok[0], "bigdir-names"))
				cmd_bigdir_names(tok, ntok, lineno);
			else if (!strcmp(tok[0], "files"))
				cmd_files(tok, ntok, lineno);
			else if (!strcmp(tok[0], "sync"))
				cmd_sync(tok, ntok, lineno);
			else if (!strcmp(tok[0], "unlink"))
				cmd_unlink_rmtree(tok, ntok, lineno, 0);
			else if (!strcmp(tok[0], "rmtree"))
				cmd_unlink_rmtree(tok, ntok, lineno, 1);
			else if (!strcmp(tok[0], "churn"))
				cmd_churn(tok, ntok, lineno);
			else if (!strcmp(tok[0], "sparse"))
				cmd_sparse(tok, ntok, lineno);
			else if (!strcmp(tok[0], "bench-tree"))
				cmd_bench_tree(tok, ntok, lineno);
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
	/* "@nomount": the scenario only probes mounts (mount-try) */
	if (!strstr(scen, "\n@nomount\n") && strncmp(scen, "@nomount\n", 9) &&
	    mount_img() < 0)
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

	umount_img(0);
	sync();
	say("e4dump-guest: %zu entries, manifest %zu bytes", g_nent, g_man_len);
	say("E4DUMP-GUEST-OK");
	finish(1);
}

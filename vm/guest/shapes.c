/* e4dump QEMU guest: the standard, small and big trees (vm/README.md, "Trees"). */
#include "guest.h"

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

int g_casefold_opt; /* tree2 is populating: casefold was handled */

/* shape options: big, small (casefold: tree2 only, handled before) */
void populate(char **opt, int nopt, int lineno)
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

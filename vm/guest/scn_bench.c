/* e4dump QEMU guest, scenario command bench-tree: the benchmark's twin tree
 * (bench/README.md).
 * bench-tree DIR plain|DESCHEX CMODE FMODE FLAGS LARGE SMALL DIRS MANY FEW
 * Under TCG every system call costs, so this writes with as few as it can:
 * the large file in 1 MiB writes of a pattern generated once, each small file
 * as openat + one write + close, each empty file as one mknodat, all relative
 * to an open directory (no path walk, which in an encrypted directory means
 * encrypting every component again).  Nothing is timed, chmod-ed or read back
 * per entry; the manifest gets one record of counts.  The contents depend
 * only on the path inside DIR, so two bench-trees with the same numbers hold
 * the same names and bytes (vm/README.md, "Bench trees"). */
#include "guest.h"

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

void cmd_bench_tree(char **tok, int ntok, int lineno)
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

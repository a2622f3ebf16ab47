/* e4dump QEMU guest, scenario command journal-churn: many journal
 * transactions and deletions, written fast, for the journal at scale
 * (issue 33; bench/journal.sh, bench/README.md "The journal at scale").
 * journal-churn ENCDIR DESCHEX CMODE FMODE FLAGS PLAINDIR ROUNDS ENC PLAIN SIZE KEEP
 * ENCDIR gets a v1 policy (the key must have been added), PLAINDIR none; each
 * has JCHURN_DIRS subdirectories d00.. .  Round R (from 0), in subdirectory
 * R % JCHURN_DIRS of each tree: ENC encrypted and PLAIN plaintext new files
 * rRRRRRR-NN of 1 .. SIZE bytes (one openat + write + close each), then the
 * files of round R - KEEP are unlinked, then syncfs: one journal transaction
 * per round (the kernel may commit more often on its own).  The last KEEP
 * rounds' files stay.  Mounted with data=journal, the plaintext files' data
 * goes through the journal too (encrypted files stay ordered: ext4 does not
 * journal encrypted data), which is what fills a large journal quickly.
 * The manifest gets one record of counts, not the entries. */
#include "guest.h"

#define JCHURN_DIRS 16
#define JCHURN_PAT ((size_t)1 << 20)

static double jc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int jc_mkdir(int dfd, const char *name)
{
	int fd;

	if (mkdirat(dfd, name, 0755) < 0)
		FAILE("journal-churn: mkdir %s", name);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		FAILE("journal-churn: open %s", name);
	return fd;
}

/* size of file N of round R of a tree: 1 .. max */
static size_t jc_size(unsigned long r, unsigned long n, int enc, size_t max)
{
	uint64_t st = ((uint64_t)r << 20) ^ ((uint64_t)n << 1) ^ (uint64_t)enc;

	return 1 + (size_t)(splitmix64(&st) % max);
}

static void jc_create(int dfd, unsigned long r, unsigned long n, int enc, size_t size,
		      const unsigned char *pat, unsigned char *buf)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "r%06lu-%02lu", r, n);
	memcpy(buf, pat + (r * 4099 + n * 131) % JCHURN_PAT, size);
	if (size >= 8)
		memcpy(buf, &r, size < sizeof(r) ? size : sizeof(r));
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		FAILE("journal-churn: create %s (%s)", name, enc ? "enc" : "plain");
	write_all(fd, buf, size, 0, name);
	if (close(fd) < 0)
		FAILE("journal-churn: close %s", name);
}

static void jc_unlink(int dfd, unsigned long r, unsigned long n, int enc)
{
	char name[32];

	snprintf(name, sizeof(name), "r%06lu-%02lu", r, n);
	if (unlinkat(dfd, name, 0) < 0)
		FAILE("journal-churn: unlink %s (%s)", name, enc ? "enc" : "plain");
}

void cmd_journal_churn(char **tok, int ntok, int lineno)
{
	struct e4_fscrypt_policy_v1 pol;
	unsigned char *pat, *buf;
	int efd, pfd, edir[JCHURN_DIRS], pdir[JCHURN_DIRS];
	unsigned long rounds, nenc, nplain, keep, r, n, created = 0, deleted = 0;
	uint64_t bytes = 0;
	size_t size;
	char p[4200];
	double t0, tl;

	if (ntok != 12)
		fail("line %d: usage: journal-churn ENCDIR DESCHEX CMODE FMODE FLAGS PLAINDIR "
		     "ROUNDS ENC PLAIN SIZE KEEP", lineno);
	memset(&pol, 0, sizeof(pol));
	if (parse_hex(tok[2], pol.master_key_descriptor, 8, lineno) != 8)
		fail("line %d: descriptor must be 8 bytes", lineno);
	pol.contents_encryption_mode = (uint8_t)parse_num(tok[3], 255, lineno);
	pol.filenames_encryption_mode = (uint8_t)parse_num(tok[4], 255, lineno);
	pol.flags = (uint8_t)parse_num(tok[5], 255, lineno);
	rounds = parse_num(tok[7], 9999999, lineno);
	nenc = parse_num(tok[8], 99, lineno);
	nplain = parse_num(tok[9], 99, lineno);
	size = parse_num(tok[10], JCHURN_PAT, lineno);
	keep = parse_num(tok[11], 999999, lineno);
	if (!size || !keep)
		fail("line %d: journal-churn: SIZE and KEEP must be at least 1", lineno);

	abs_path(p, sizeof(p), parse_dir(tok[1], lineno));
	if (mkdir(p, 0755) < 0)
		FAILE("mkdir %s", p);
	efd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (efd < 0)
		FAILE("open %s", p);
	if (ioctl(efd, E4_IOC_SET_ENCRYPTION_POLICY, &pol) < 0)
		FAILE("line %d: FS_IOC_SET_ENCRYPTION_POLICY on %s", lineno, p);
	abs_path(p, sizeof(p), parse_dir(tok[6], lineno));
	if (mkdir(p, 0755) < 0)
		FAILE("mkdir %s", p);
	pfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		FAILE("open %s", p);
	for (int d = 0; d < JCHURN_DIRS; d++) {
		char name[8];

		snprintf(name, sizeof(name), "d%02d", d);
		edir[d] = jc_mkdir(efd, name);
		pdir[d] = jc_mkdir(pfd, name);
	}
	pat = gen_content(fnv1a64("journal-churn pattern"), 2 * JCHURN_PAT);
	buf = xmalloc(JCHURN_PAT);

	t0 = tl = jc_now();
	for (r = 0; r < rounds; r++) {
		int d = (int)(r % JCHURN_DIRS);

		for (n = 0; n < nenc; n++) {
			size_t s = jc_size(r, n, 1, size);

			jc_create(edir[d], r, n, 1, s, pat, buf);
			bytes += s;
		}
		for (n = 0; n < nplain; n++) {
			size_t s = jc_size(r, n, 0, size);

			jc_create(pdir[d], r, n, 0, s, pat, buf);
			bytes += s;
		}
		created += nenc + nplain;
		if (r >= keep) {
			unsigned long old = r - keep;
			int od = (int)(old % JCHURN_DIRS);

			for (n = 0; n < nenc; n++)
				jc_unlink(edir[od], old, n, 1);
			for (n = 0; n < nplain; n++)
				jc_unlink(pdir[od], old, n, 0);
			deleted += nenc + nplain;
		}
		if (syncfs(efd) < 0)
			FAILE("syncfs");
		if ((r + 1) % 2000 == 0) {
			double t = jc_now();

			say("e4dump-guest: journal-churn: %lu rounds, %.1f s (%.1f rounds/s)", r + 1,
			    t - t0, 2000 / (t - tl));
			tl = t;
		}
	}
	for (int d = 0; d < JCHURN_DIRS; d++) {
		close(edir[d]);
		close(pdir[d]);
	}
	if (syncfs(efd) < 0)
		FAILE("syncfs");
	close(efd);
	close(pfd);
	free(buf);
	free(pat);
	say("e4dump-guest: journal-churn: %lu rounds, %lu files made (%" PRIu64
	    " bytes), %lu deleted, %.1f s", rounds, created, bytes, deleted, jc_now() - t0);
	man_add("journal-churn %s %s %lu %lu %lu %zu %lu %lu %lu %" PRIu64 "\n", tok[1], tok[6],
		rounds, nenc, nplain, size, keep, created, deleted, bytes);
}

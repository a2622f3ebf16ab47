/* e4dump QEMU guest, scenario commands for running a program of the
 * initramfs (Debian's `fscrypt`, issue 29): more mounts and what udev would
 * have made (mount-extra, uuid-links), the RNG (seed-random), the
 * environment (setenv), the user's secrets (secret), a login account
 * (user), the tool's config file (fscrypt-conf), an empty directory
 * (fscrypt-dir), the program itself (run) and the trees written into the
 * directories it encrypted (fill).  vm/README.md, "Running a program". */
#include "guest.h"

#define SECRETS_DIR "/secrets"

/* ---- mounts other than /mnt, unmounted at the end ---------------------------- */

#define MAX_EXTRA 8
static char *g_extra[MAX_EXTRA];
static int g_nextra;

/* mount-extra DEV DIR [TYPE]: mount DEV (ext4 unless TYPE) on DIR, made if
 * missing; unmounted, last first, before the guest reports OK */
void cmd_mount_extra(char **tok, int ntok, int lineno)
{
	const char *type = ntok == 4 ? tok[3] : "ext4";

	if (ntok != 3 && ntok != 4)
		fail("line %d: usage: mount-extra DEV DIR [TYPE]", lineno);
	if (tok[2][0] != '/' || !strcmp(tok[2], "/") || !strcmp(tok[2], MNT))
		fail("line %d: mount-extra: DIR must be an absolute path other than / and " MNT,
		     lineno);
	if (g_nextra == MAX_EXTRA)
		fail("line %d: mount-extra: more than %d mounts", lineno, MAX_EXTRA);
	if (mkdir(tok[2], 0755) < 0 && errno != EEXIST)
		FAILE("line %d: mkdir %s", lineno, tok[2]);
	if (mount(tok[1], tok[2], type, 0, NULL) < 0)
		FAILE("line %d: mount %s on %s (%s)", lineno, tok[1], tok[2], type);
	g_extra[g_nextra++] = xstrdup(tok[2]);
	say("e4dump-guest: %s mounted on %s (%s)", tok[1], tok[2], type);
}

void umount_extra(void)
{
	while (g_nextra > 0) {
		char *d = g_extra[--g_nextra];

		if (umount2(d, 0) < 0)
			FAILE("umount %s", d);
		free(d);
	}
}

/* uuid-links: /dev/disk/by-uuid/UUID -> ../../vdX for each virtio disk
 * holding an ext4 superblock (magic 0xef53 at 1024 + 56; the UUID at
 * 1024 + 104), as udev makes them.  `fscrypt` finds a filesystem's UUID,
 * and follows the UUID of a .link file, through these links. */
void cmd_uuid_links(char **tok, int ntok, int lineno)
{
	char dev[32], link[128], target[64];
	unsigned char sb[1024];
	int n = 0;

	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: uuid-links", lineno);
	if ((mkdir("/dev/disk", 0755) < 0 && errno != EEXIST) ||
	    (mkdir("/dev/disk/by-uuid", 0755) < 0 && errno != EEXIST))
		FAILE("line %d: mkdir /dev/disk/by-uuid", lineno);
	for (char c = 'a'; c <= 'z'; c++) {
		const unsigned char *u = sb + 104;
		int fd;

		snprintf(dev, sizeof(dev), "/dev/vd%c", c);
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (pread(fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb))
			FAILE("line %d: read the superblock of %s", lineno, dev);
		close(fd);
		if (sb[56] != 0x53 || sb[57] != 0xef)
			continue;
		snprintf(link, sizeof(link),
			 "/dev/disk/by-uuid/%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5], u[6],
			 u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
		snprintf(target, sizeof(target), "../../vd%c", c);
		if (symlink(target, link) < 0 && errno != EEXIST)
			FAILE("line %d: symlink %s", lineno, link);
		say("e4dump-guest: %s -> %s", link, target);
		n++;
	}
	if (n == 0)
		fail("line %d: uuid-links: no ext4 disk found", lineno);
}

/* seed-random: one read of /dev/random.  Without an RNG device the crng of
 * a fresh guest is not ready, and the non-blocking getrandom() of Go's
 * crypto/rand fails until a blocking read has waited for it. */
void cmd_seed_random(char **tok, int ntok, int lineno)
{
	unsigned char b[16];
	int fd;

	(void)tok;
	if (ntok != 1)
		fail("line %d: usage: seed-random", lineno);
	fd = open("/dev/random", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
		FAILE("line %d: read /dev/random", lineno);
	close(fd);
	say("e4dump-guest: /dev/random read");
}

/* setenv NAME VALUE: for the programs run later */
void cmd_setenv(char **tok, int ntok, int lineno)
{
	if (ntok != 3)
		fail("line %d: usage: setenv NAME VALUE", lineno);
	if (setenv(tok[1], tok[2], 1) < 0)
		FAILE("line %d: setenv %s", lineno, tok[1]);
}

/* ---- secrets --------------------------------------------------------------------- */

/* NAME: 1..64 characters of [A-Za-z0-9._-], not starting with '.' */
static const char *secret_name(const char *s, int lineno)
{
	parse_tag(s, lineno);
	if (s[0] == '.')
		fail("line %d: bad secret name '%s'", lineno, s);
	return s;
}

/* "text:" followed by %HH-escaped bytes (any byte may be escaped, blanks
 * must be) or "hex:" followed by hex; returns the number of bytes */
static size_t parse_bytes(const char *s, unsigned char *out, size_t max, int lineno)
{
	size_t n = 0;

	if (!strncmp(s, "hex:", 4))
		return parse_hex(s + 4, out, max, lineno);
	if (strncmp(s, "text:", 5))
		fail("line %d: '%s': write text:ESCAPED or hex:HEX", lineno, s);
	for (s += 5; *s; s++) {
		unsigned v = (unsigned char)*s;

		if (v == '%') {
			if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
				fail("line %d: bad %%HH escape", lineno);
			sscanf(s + 1, "%2x", &v);
			s += 2;
		}
		if (n == max)
			fail("line %d: more than %zu bytes", lineno, max);
		out[n++] = (unsigned char)v;
	}
	return n;
}

/* secret NAME text:ESCAPED|hex:HEX: the file /secrets/NAME (0600) holds the
 * bytes; vm/make-image.sh writes the same bytes to secrets/NAME next to the
 * image (what the user of the tool had: passphrase files, raw key files).
 * Recorded as "secret NAME NBYTES". */
void cmd_secret(char **tok, int ntok, int lineno)
{
	unsigned char buf[4096];
	char p[128];
	size_t n;
	int fd;

	if (ntok != 3)
		fail("line %d: usage: secret NAME text:ESCAPED|hex:HEX", lineno);
	secret_name(tok[1], lineno);
	n = parse_bytes(tok[2], buf, sizeof(buf), lineno);
	if (mkdir(SECRETS_DIR, 0700) < 0 && errno != EEXIST)
		FAILE("mkdir " SECRETS_DIR);
	snprintf(p, sizeof(p), SECRETS_DIR "/%s", tok[1]);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		FAILE("line %d: create %s", lineno, p);
	write_all(fd, buf, n, 0, p);
	close(fd);
	man_add("secret %s %zu\n", tok[1], n);
}

/* user NAME UID HASH: a login account, appended to /etc/passwd (uid = gid =
 * UID, home /, no shell) and /etc/shadow (HASH as crypt(3) writes it, e.g.
 * "$6$salt$..." from `openssl passwd -6`), for pam_unix */
void cmd_user(char **tok, int ntok, int lineno)
{
	unsigned long uid;
	FILE *f;

	if (ntok != 4)
		fail("line %d: usage: user NAME UID HASH", lineno);
	parse_tag(tok[1], lineno);
	uid = parse_num(tok[2], 65533, lineno);
	if (strchr(tok[3], ':'))
		fail("line %d: a ':' in the hash", lineno);
	if (mkdir("/etc", 0755) < 0 && errno != EEXIST)
		FAILE("line %d: mkdir /etc", lineno);
	f = fopen("/etc/passwd", "a");
	if (!f || fprintf(f, "%s:x:%lu:%lu::/:/bin/false\n", tok[1], uid, uid) < 0 || fclose(f))
		FAILE("line %d: append to /etc/passwd", lineno);
	f = fopen("/etc/group", "a");
	if (!f || fprintf(f, "%s:x:%lu:\n", tok[1], uid) < 0 || fclose(f))
		FAILE("line %d: append to /etc/group", lineno);
	f = fopen("/etc/shadow", "a");
	if (!f || fprintf(f, "%s:%s:19000:0:99999:7:::\n", tok[1], tok[3]) < 0 || fclose(f))
		FAILE("line %d: append to /etc/shadow", lineno);
	say("e4dump-guest: user %s (uid %lu)", tok[1], uid);
}

/* ---- fscrypt-conf ------------------------------------------------------------------- */

/* fscrypt-conf [KEY=VALUE]...: /etc/fscrypt.conf (or $FSCRYPT_CONF) written
 * as `fscrypt setup` writes it (JSON of metadata.Config, int64 as strings),
 * with the values given: time, memory (KiB), parallelism (the Argon2id
 * costs of the protectors made after it), policy_version, padding,
 * contents, filenames, source, v1_fs_keyring (true/false).  `fscrypt
 * setup --time=1ms` still picks costs that are slow under TCG.  Recorded as
 * "fscrypt-conf KEY=VALUE,..." (every key). */
void cmd_fscrypt_conf(char **tok, int ntok, int lineno)
{
	static const char *const keys[] = { "time", "memory", "parallelism", "policy_version",
					     "padding", "contents", "filenames", "source",
					     "v1_fs_keyring" };
	const char *val[9] = { "1", "128", "1", "2", "32", "AES_256_XTS", "AES_256_CTS",
			       "custom_passphrase", "true" };
	const char *path = getenv("FSCRYPT_CONF") ? getenv("FSCRYPT_CONF") : "/etc/fscrypt.conf";
	size_t k;
	FILE *f;

	for (int i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		for (k = 0; eq && k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k]) == (size_t)(eq - tok[i]) &&
			    !strncmp(keys[k], tok[i], eq - tok[i]))
				break;
		if (!eq || k == sizeof(keys) / sizeof(keys[0]))
			fail("line %d: fscrypt-conf: unknown setting '%s'", lineno, tok[i]);
		for (const char *c = eq + 1; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				fail("line %d: fscrypt-conf: bad value '%s'", lineno, tok[i]);
		val[k] = eq + 1;
	}
	f = fopen(path, "w");
	if (!f)
		FAILE("line %d: create %s", lineno, path);
	fprintf(f, "{\n\t\"source\": \"%s\",\n\t\"hash_costs\": {\n\t\t\"time\": \"%s\",\n"
		"\t\t\"memory\": \"%s\",\n\t\t\"parallelism\": \"%s\"\n\t},\n"
		"\t\"options\": {\n\t\t\"padding\": \"%s\",\n\t\t\"contents\": \"%s\",\n"
		"\t\t\"filenames\": \"%s\",\n\t\t\"policy_version\": \"%s\"\n\t},\n"
		"\t\"use_fs_keyring_for_v1_policies\": %s,\n"
		"\t\"allow_cross_user_metadata\": false\n}\n",
		val[7], val[0], val[1], val[2], val[4], val[5], val[6], val[3], val[8]);
	if (fclose(f))
		FAILE("line %d: write %s", lineno, path);
	man_add("fscrypt-conf ");
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		man_add("%s%s=%s", k ? "," : "", keys[k], val[k]);
	man_add("\n");
	say("e4dump-guest: %s written", path);
}

/* fscrypt-dir DIR: an empty directory /mnt/DIR (0755) for `fscrypt
 * encrypt`; it becomes a manifest tree with `fill` */
void cmd_fscrypt_dir(char **tok, int ntok, int lineno)
{
	char p[4200];

	if (ntok != 2)
		fail("line %d: usage: fscrypt-dir DIR", lineno);
	abs_path(p, sizeof(p), parse_dir(tok[1], lineno));
	if (mkdir(p, 0755) < 0)
		FAILE("line %d: mkdir %s", lineno, p);
}

/* ---- run --------------------------------------------------------------------------- */

#define MAX_RUNS 64
static struct {
	char tag[65];
	char *out; /* what it wrote on stdout, NUL-terminated */
} g_runs[MAX_RUNS];
static int g_nruns;

/* the first word of 16 hex digits (a protector or v1 policy descriptor) in
 * what run TAG printed; words end at anything but [0-9a-f] */
static void run_descriptor(const char *tag, char *out, int lineno)
{
	for (int i = 0; i < g_nruns; i++) {
		const char *s;

		if (strcmp(g_runs[i].tag, tag))
			continue;
		for (s = g_runs[i].out; *s;) {
			size_t n = strspn(s, "0123456789abcdef");

			if (n == 16 && (s == g_runs[i].out || !isalnum((unsigned char)s[-1])) &&
			    !isalnum((unsigned char)s[16])) {
				memcpy(out, s, 16);
				out[16] = '\0';
				return;
			}
			s += n ? n : 1;
		}
		fail("line %d: run %s printed no descriptor", lineno, tag);
	}
	fail("line %d: no run %s before", lineno, tag);
}

/* the policy of /mnt/DIR: descriptor (v1) or identifier (v2) as hex, the
 * name of its file in .fscrypt/policies/ */
static void policy_id(const char *dir, char *out, int lineno)
{
	struct e4_get_policy_ex_arg a;
	int e = get_policy(parse_dir(dir, lineno), 1, &a);
	const uint8_t *id;
	size_t n;

	if (e)
		fail_errno(e, "line %d: FS_IOC_GET_ENCRYPTION_POLICY_EX on %s/%s", lineno, MNT, dir);
	if (a.policy[0] == 0 && a.policy_size == 12) {
		id = a.policy + 4;
		n = 8;
	} else if (a.policy[0] == 2 && a.policy_size == 24) {
		id = a.policy + 8;
		n = 16;
	} else {
		fail("line %d: %s/%s: policy version %u", lineno, MNT, dir, a.policy[0]);
	}
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* an argument of run with {TAG} and {policy:DIR} replaced */
static char *substitute(const char *w, int lineno)
{
	size_t nb = 0;
	char *out, *o;

	for (const char *c = w; *c; c++)
		nb += *c == '{';
	out = o = xmalloc(strlen(w) + 1 + 33 * nb); /* a value has at most 32 digits */
	while (*w) {
		const char *close_b = *w == '{' ? strchr(w, '}') : NULL;
		char name[300], val[40];

		if (!close_b) {
			*o++ = *w++;
			continue;
		}
		if ((size_t)(close_b - w - 1) >= sizeof(name))
			fail("line %d: {...} too long", lineno);
		memcpy(name, w + 1, close_b - w - 1);
		name[close_b - w - 1] = '\0';
		if (!strncmp(name, "policy:", 7))
			policy_id(name + 7, val, lineno);
		else
			run_descriptor(parse_tag(name, lineno), val, lineno);
		o += sprintf(o, "%s", val);
		w = close_b + 1;
	}
	*o = '\0';
	return out;
}

/* run TAG RC STDIN PROG [ARG]...: fork, exec PROG with ARGs ({TAG} and
 * {policy:DIR} substituted) and the environment of setenv; its stdin is
 * /dev/null for "-", the bytes of "text:ESCAPED" or "hex:HEX" (answers to
 * prompts, e.g. "text:y%0a"), else the secrets named, joined by '+', one
 * after the other (e.g. "pass-a+pass-b"); stdout and stderr go to the console, and
 * stdout is kept for {TAG}.  Fails unless its exit status is RC.  Recorded
 * as "run TAG STATUS". */
void cmd_run(char **tok, int ntok, int lineno)
{
	char *argv[32], *buf = NULL, in_path[] = "/secrets/.stdin";
	size_t len = 0, cap = 0;
	int pfd[2], in_fd, status, want, got;
	pid_t pid;

	if (ntok < 5)
		fail("line %d: usage: run TAG RC STDIN PROG [ARG]...", lineno);
	parse_tag(tok[1], lineno);
	want = (int)parse_num(tok[2], 255, lineno);
	if (g_nruns == MAX_RUNS)
		fail("line %d: too many runs", lineno);
	for (int i = 0; i < g_nruns; i++)
		if (!strcmp(g_runs[i].tag, tok[1]))
			fail("line %d: run %s twice", lineno, tok[1]);
	for (int i = 4; i < ntok; i++)
		argv[i - 4] = substitute(tok[i], lineno);
	argv[ntok - 4] = NULL;

	/* stdin: the secrets, concatenated into one file */
	if (!strcmp(tok[3], "-")) {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	} else if (!strncmp(tok[3], "text:", 5) || !strncmp(tok[3], "hex:", 4)) {
		unsigned char b[4096];
		size_t n = parse_bytes(tok[3], b, sizeof(b), lineno);
		int out = open(in_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (out < 0)
			FAILE("line %d: create %s", lineno, in_path);
		write_all(out, b, n, 0, in_path);
		close(out);
		in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
	} else {
		char *names = xstrdup(tok[3]), *save = NULL;
		off_t off = 0;
		int out = open(in_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (out < 0)
			FAILE("line %d: create %s", lineno, in_path);
		for (char *n = strtok_r(names, "+", &save); n; n = strtok_r(NULL, "+", &save)) {
			unsigned char sb[4096];
			char p[128];
			ssize_t r;
			int sfd;

			snprintf(p, sizeof(p), SECRETS_DIR "/%s", secret_name(n, lineno));
			sfd = open(p, O_RDONLY | O_CLOEXEC);
			if (sfd < 0)
				FAILE("line %d: open %s", lineno, p);
			while ((r = read(sfd, sb, sizeof(sb))) > 0) {
				write_all(out, sb, (size_t)r, off, in_path);
				off += r;
			}
			close(sfd);
		}
		free(names);
		close(out);
		in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
	}
	if (in_fd < 0)
		FAILE("line %d: open the stdin of run %s", lineno, tok[1]);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		FAILE("pipe2");
	say("e4dump-guest: run %s: %s", tok[1], argv[0]);
	pid = fork();
	if (pid < 0)
		FAILE("fork");
	if (pid == 0) {
		if (dup2(in_fd, 0) < 0 || dup2(pfd[1], 1) < 0)
			_exit(126);
		execv(argv[0], argv);
		say("e4dump-guest: exec %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	close(in_fd);
	for (;;) {
		ssize_t r;

		if (len + 4097 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				fail("out of memory");
		}
		r = read(pfd[0], buf + len, 4096);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			FAILE("read the output of run %s", tok[1]);
		if (r == 0)
			break;
		if (write(1, buf + len, (size_t)r) < 0) {
			/* the console is only for reading along */
		}
		len += (size_t)r;
	}
	close(pfd[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			FAILE("waitpid");
	unlink(in_path);
	got = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	for (int i = 4; i < ntok; i++)
		free(argv[i - 4]);
	snprintf(g_runs[g_nruns].tag, sizeof(g_runs[g_nruns].tag), "%s", tok[1]);
	g_runs[g_nruns++].out = buf;
	man_add("run %s %d\n", tok[1], got);
	if (got != want)
		fail("line %d: run %s: exit status %d, wanted %d", lineno, tok[1], got, want);
}

/* fill DIR SECRETS [small] [big]: /mnt/DIR, which `fscrypt encrypt` made
 * an encrypted (and unlocked) directory, becomes a manifest tree: its
 * `tree` line with the policy read back (enc or enc2, as `tree`/`tree2`),
 * "fscrypt-tree DIR SECRETS" (SECRETS: the secrets, joined by ',', each of
 * which opens it by itself), then the standard (or small) tree in it.  Its
 * mode stays what `fscrypt encrypt` left. */
void cmd_fill(char **tok, int ntok, int lineno)
{
	struct e4_get_policy_ex_arg a;
	const char *dir;
	size_t first = g_nent;
	char id[40], sec[512];
	struct stat st;
	char p[4200];
	int e;

	if (ntok < 3)
		fail("line %d: usage: fill DIR SECRETS [small] [big]", lineno);
	dir = parse_dir(tok[1], lineno);
	if (strlen(tok[2]) >= sizeof(sec))
		fail("line %d: SECRETS too long", lineno);
	snprintf(sec, sizeof(sec), "%s", tok[2]);
	for (char *save = NULL, *n = strtok_r(sec, ",", &save); n; n = strtok_r(NULL, ",", &save))
		secret_name(n, lineno);
	abs_path(p, sizeof(p), dir);
	if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		fail("line %d: %s is not a directory (fscrypt-dir)", lineno, p);
	e = get_policy(dir, 1, &a);
	if (e)
		fail_errno(e, "line %d: %s has no encryption policy", lineno, p);
	policy_id(dir, id, lineno);
	start_tree(dir);
	adopt_dir(st.st_mode & 07777);
	if (a.policy[0] == 0)
		man_add("tree %s enc %s %u %u %u", dir, id, a.policy[1], a.policy[2], a.policy[3]);
	else
		man_add("tree %s enc2 %s %u %u %u", dir, id, a.policy[1], a.policy[2], a.policy[3]);
	for (int i = 3; i < ntok; i++)
		man_add(" %s", tok[i]);
	man_add("\nfscrypt-tree %s %s\n", dir, tok[2]);
	populate(tok + 3, ntok - 3, lineno);
	finish_tree(first);
}

/* unlock-kept's reader of an export: the input describes the directory
 * extract --keep-locked wrote (its %e4dump-*.json files, the kept
 * ciphertext files, subdirectories, symlinks), as a list of entries
 *
 *   u8 kind (0 file, 1 directory, 2 symlink), u8 name length, the name
 *   (a relative path; "", "." and ".." components and a leading "/" make
 *   the entry skipped), le16 data length, the data (the file's bytes or
 *   the symlink's target)
 *
 * made under a temporary directory; then unlock-kept runs in-process as
 * the CLI runs it, with the bundled sample's key (fuzz_test_key), into an
 * output directory, with --json; both trees are removed after each input.
 * Seeds: the exports extract --keep-locked writes of the sample image
 * (fuzz/make-seeds.sh, when it is given an e4dump binary). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "fuzz_common.h"

#define MAX_ENTRIES 256

static char key_path[64], base[4096], exp_dir[4200], out_dir[4200];

static void at_exit(void)
{
	fuzz_remove_tree(exp_dir);
	fuzz_remove_tree(out_dir);
	rmdir(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct rlimit rl = { 64u << 20, 64u << 20 };

	(void)argc, (void)argv;
	fuzz_quiet();
	fuzz_key_file(key_path, sizeof(key_path));
	snprintf(base, sizeof(base), "%s/e4fuzz-export-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(exp_dir, sizeof(exp_dir), "%s/export", base);
	snprintf(out_dir, sizeof(out_dir), "%s/out", base);
	atexit(at_exit);
	setrlimit(RLIMIT_FSIZE, &rl);
	return 0;
}

/* A relative path with no empty, "." or ".." component. */
static int safe_name(const char *n)
{
	const char *c = n;

	if (!*n || *n == '/')
		return 0;
	for (;;) {
		size_t l = strcspn(c, "/");

		if (!l || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[l])
			return 1;
		c += l + 1;
	}
}

/* Makes the directories above path (relative to dir), as mkdir -p. */
static void parents(const char *dir, const char *name)
{
	char p[4600];

	for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
		snprintf(p, sizeof(p), "%s/%.*s", dir, (int)(s - name), name);
		mkdir(p, 0700);
	}
}

static void make_entry(unsigned int kind, const char *name, const uint8_t *d, size_t len)
{
	char p[4600], target[65536 + 1];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", exp_dir, name);
	parents(exp_dir, name);
	switch (kind) {
	case 0:
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return;
		if (len && write(fd, d, len) != (ssize_t)len) {
			close(fd);
			return;
		}
		close(fd);
		break;
	case 1:
		mkdir(p, 0700);
		break;
	default:
		memcpy(target, d, len);
		target[len] = 0;
		if (target[0] && strlen(target) == len)
			(void)symlink(target, p);
		break;
	}
}

static void unlock(void)
{
	const char *keys[1] = { key_path };
	const char *args[1] = { exp_dir };
	struct report r = { .verbose = 1 };
	struct options o;

	memset(&o, 0, sizeof(o));
	o.key_files = keys;
	o.n_key_files = 1;
	o.args = args;
	o.n_args = 1;
	o.out_dir = out_dir;
	o.json = 1;
	(void)cmd_unlock_kept(&o, &r);
	fflush(stdout);
	fflush(stderr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int xfsz_ignored;
	size_t off = 0;
	char name[256];

	if (!xfsz_ignored) {	/* after libFuzzer's own handlers */
		signal(SIGXFSZ, SIG_IGN);
		xfsz_ignored = 1;
	}
	if (mkdir(exp_dir, 0700) && errno != EEXIST)
		abort();
	for (int n = 0; n < MAX_ENTRIES && size - off >= 4; n++) {
		unsigned int kind = data[off] % 3, nl = data[off + 1];
		size_t len;

		if (size - off - 2 < nl + 2u)
			break;
		memcpy(name, data + off + 2, nl);
		name[nl] = 0;
		off += 2 + nl;
		len = data[off] | (size_t)data[off + 1] << 8;
		off += 2;
		if (len > size - off)
			len = size - off;
		if (strlen(name) == nl && safe_name(name))
			make_entry(kind, name, data + off, len);
		off += len;
	}
	unlock();
	fuzz_remove_tree(exp_dir);
	fuzz_remove_tree(out_dir);
	return 0;
}

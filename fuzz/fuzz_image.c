/* Whole images: the input is an ext4 image.  It is held in a memfd and
 * opened as /proc/self/fd/N through the normal read-only path
 * (e4_fs_open); then the commands run in-process as the CLI runs them:
 * info, ls -R -l without the key (--format 2015 --dummy-key) and with it,
 * extract (into a temporary directory, removed after each input), verify
 * with the key and verify --json without; then the library walks the
 * tree and reads every file at scattered offsets (e4_file_pread, as a
 * mount would).  The key is fuzz_test_key, the
 * bundled sample's key.  Files that extract writes are capped by
 * RLIMIT_FSIZE (64 MiB). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ext2fs/ext2_err.h>
#include "commands.h"
#include "file.h"
#include "fuzz_common.h"
#include "keyfile.h"
#include "walk.h"

#define MAX_IMAGE (8u << 20)

static int img_fd = -1;
static char img_path[64], key_path[64], tmp_base[4096], out_dir[4200];

static void clean_out(void)
{
	fuzz_remove_tree(out_dir);
}

static void at_exit(void)
{
	clean_out();
	rmdir(tmp_base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct rlimit rl = { 64u << 20, 64u << 20 };

	(void)argc, (void)argv;
	fuzz_quiet();
	initialize_ext2_error_table();
	fuzz_key_file(key_path, sizeof(key_path));
	img_fd = fuzz_memfd("e4dump-fuzz-image", img_path, sizeof(img_path));
	snprintf(tmp_base, sizeof(tmp_base), "%s/e4dump-fuzz-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmp_base)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(out_dir, sizeof(out_dir), "%s/out", tmp_base);
	atexit(at_exit);
	setrlimit(RLIMIT_FSIZE, &rl);
	return 0;
}

static void run(int (*cmd)(const struct options *, struct report *),
		int with_key, int recursive, int long_format, const char *out,
		int json, enum e4_name_format format, int dummy_key)
{
	const char *keys[1] = { key_path };
	const char *args[1] = { img_path };
	struct report r = { .verbose = 1 };
	struct options o;

	memset(&o, 0, sizeof(o));
	o.key_files = keys;
	o.n_key_files = with_key ? 1 : 0;
	o.args = args;
	o.n_args = 1;
	o.recursive = recursive;
	o.long_format = long_format;
	o.out_dir = out;
	o.json = json;
	o.format = format;
	o.dummy_key = dummy_key;
	(void)cmd(&o, &r);
	fflush(stdout);
	fflush(stderr);
}

/* Where touch_xattr's reads go (volatile: not optimised away; a local
 * one is "set but not used" to clang 14). */
static volatile uint8_t touched;

/* Every byte of an attribute's value (EA inodes read). */
static int touch_xattr(void *arg, const struct e4_xattr_item *x)
{
	(void)arg;
	for (size_t i = 0; x->value && i < x->value_len; i++)
		touched += x->value[i];
	touched += (uint8_t)strlen(x->name);
	return 0;
}

/* Random access through the library: every regular file read at a few
 * offsets (the mount's way of reading), every entry's attributes. */
static enum e4_walk_action read_some(void *arg, const struct e4_walk_node *n)
{
	struct e4_fs *fs = arg;
	struct e4_file *f;
	uint8_t buf[5000];
	size_t got;

	if (n->inode)
		e4_inode_xattrs(fs, n->inode, n->path, touch_xattr, NULL);
	if (!n->inode || !E4_ISREG(n->inode->mode) ||
	    e4_file_open(fs, n->inode, n->path, &f) != E4_OK)
		return E4_WALK_CONTINUE;
	/* odd inodes read past unreadable blocks (extract's mode), even
	 * ones stop at the first */
	if (n->ino & 1)
		e4_file_keep_going(f);
	for (uint64_t off = 0; off < e4_file_size(f) && off < (64u << 20);
	     off = off * 3 + 4093)
		if (e4_file_pread(f, off, buf, sizeof(buf), &got) != E4_OK)
			break;
	e4_file_close(f);
	return E4_WALK_CONTINUE;
}

static void quiet(void *arg, const struct e4_diag *d)
{
	(void)arg, (void)d;
}

static void library_walk(void)
{
	struct e4_keystore *ks = e4_keystore_new();
	struct e4_fs_options fo;
	struct e4_walk_options wo = { 1, 1, 0, 0 };
	struct e4_walk_visitor v = { .entry = read_some };
	struct e4_fs *fs;

	if (!ks || e4_keystore_add(ks, fuzz_test_key, sizeof(fuzz_test_key),
				   "fuzz") != E4_OK)
		abort();
	memset(&fo, 0, sizeof(fo));
	fo.keys = ks;
	fo.diag = quiet;
	if (e4_fs_open(&fs, img_path, &fo) == E4_OK) {
		e4_walk(fs, E4_ROOT_INO, "/", &wo, &v, fs, NULL);
		e4_fs_close(fs);
	}
	e4_keystore_free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int xfsz_ignored;
	size_t off = 0;

	/* Writes past the cap fail with EFBIG instead of SIGXFSZ.  Set here,
	 * not in LLVMFuzzerInitialize: libFuzzer installs its own SIGXFSZ
	 * handler (a "crash") after that. */
	if (!xfsz_ignored) {
		signal(SIGXFSZ, SIG_IGN);
		xfsz_ignored = 1;
	}
	if (size < 1024 || size > MAX_IMAGE)
		return 0; /* not even a superblock; or too slow to be useful */
	if (ftruncate(img_fd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(img_fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	/* cmd, key, -R, -l, -o, --json, --format, --dummy-key */
	run(cmd_info, 1, 0, 0, NULL, 0, E4_FORMAT_AUTO, 0);
	run(cmd_ls, 0, 1, 1, NULL, 0, E4_FORMAT_2015, 1);
	run(cmd_ls, 1, 1, 1, NULL, 0, E4_FORMAT_AUTO, 0);
	run(cmd_extract, 1, 0, 0, out_dir, 0, E4_FORMAT_AUTO, 0);
	clean_out();
	run(cmd_verify, 1, 0, 0, NULL, 0, E4_FORMAT_AUTO, 0);
	run(cmd_verify, 0, 0, 0, NULL, 1, E4_FORMAT_AUTO, 0);
	run(cmd_journal, 0, 0, 0, NULL, 1, E4_FORMAT_AUTO, 0);
	run(cmd_undelete, 1, 0, 0, out_dir, 1, E4_FORMAT_AUTO, 0);
	clean_out();
	library_walk();
	return 0;
}

/* The image layer module by module, on the kernel-written sample
 * (testvectors/sample: its manifest lists what the kernel wrote) and on
 * sources made in memory:
 *   blockmap  every block map of the sample (extent reader, image/fs/
 *             blockmap.c) against debugfs's `blocks` (e2fsprogs' own
 *             reader: an independent implementation);
 *   dir       the directory reader (image/tree/dirread.c, dir.c): names
 *             decrypted with the key are the ones the manifest says the
 *             kernel wrote; without the key every entry has a no-key name
 *             that finds it again, with the key too;
 *   source    the block sources (image/source/source.c): windows bounded
 *             by their base, reads past the end refused, libraries' short
 *             reads repeated, failed reads reported, never passed on.
 * SAMPLE_IMG and SAMPLE_KEY come from the environment (ctest sets them). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "e4dump.h"

static const char *sample_img(void)
{
	const char *p = getenv("SAMPLE_IMG");

	ck_assert_msg(p != NULL, "SAMPLE_IMG not set");
	return p;
}

static struct e4_keystore *sample_keys(void)
{
	const char *path = getenv("SAMPLE_KEY");
	struct e4_keystore *ks = e4_keystore_new();
	uint8_t buf[256], key[E4_MAX_KEY_SIZE];
	size_t n, len;
	const char *why;
	FILE *f;

	ck_assert_msg(path != NULL, "SAMPLE_KEY not set");
	ck_assert(ks != NULL);
	f = fopen(path, "rb");
	ck_assert(f != NULL);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_int_eq(e4_keyfile_parse(buf, n, key, &len, &why), E4_OK);
	ck_assert_int_eq(e4_keystore_add(ks, key, len, "sample.key"), E4_OK);
	e4_wipe(key, sizeof(key));
	return ks;
}

static struct e4_fs *open_sample(const struct e4_keystore *ks)
{
	struct e4_fs_options opt;
	struct e4_fs *fs;

	memset(&opt, 0, sizeof(opt));
	opt.keys = ks;
	opt.listing = 1;
	ck_assert_int_eq(e4_fs_open(&fs, sample_img(), &opt), E4_OK);
	return fs;
}

/* --- blockmap ------------------------------------------------------ */

struct maps {
	struct e4_fs *fs;
	unsigned int checked;
};

/* debugfs's `blocks <ino>`: the data blocks, space-separated. */
static char *debugfs_blocks(uint32_t ino)
{
	char cmd[512], *out = calloc(1, 65536);
	size_t n;
	FILE *p;

	ck_assert(out != NULL);
	snprintf(cmd, sizeof(cmd), "debugfs -R 'blocks <%u>' '%s' 2>/dev/null", ino,
		 sample_img());
	p = popen(cmd, "r");
	ck_assert(p != NULL);
	n = fread(out, 1, 65535, p);
	pclose(p);
	out[n] = 0;
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = 0;
	return out;
}

static enum e4_walk_action check_map(void *arg, const struct e4_walk_node *n)
{
	struct maps *m = arg;
	struct e4_run *runs;
	size_t nruns, len = 0;
	char *want, *got;

	if (!n->inode || (!E4_ISREG(n->inode->mode) && !E4_ISDIR(n->inode->mode)) ||
	    (n->inode->flags & E4_INODE_INLINE_DATA_FL))
		return E4_WALK_CONTINUE;
	ck_assert_int_eq(e4_inode_runs(m->fs, n->inode, n->path,
				       e4_inode_size_blocks(m->fs, n->inode), &runs, &nruns),
			 E4_OK);
	got = calloc(1, 65536);
	ck_assert(got != NULL);
	for (size_t i = 0; i < nruns; i++)
		for (uint64_t b = 0; b < runs[i].len && len < 65000; b++)
			len += (size_t)snprintf(got + len, 65536 - len, "%s%llu", len ? " " : "",
						(unsigned long long)(runs[i].pblk + b));
	want = debugfs_blocks(n->ino);
	ck_assert_msg(!strcmp(got, want), "%s (inode %u): e4dump [%s], debugfs [%s]",
		      n->path, n->ino, got, want);
	m->checked++;
	free(runs);
	free(got);
	free(want);
	return E4_WALK_CONTINUE;
}

START_TEST(test_block_maps_match_debugfs)
{
	struct maps m = { open_sample(NULL), 0 };
	struct e4_walk_options wo = { .recursive = 1 };
	struct e4_walk_visitor v = { .entry = check_map };

	ck_assert_int_eq(e4_walk(m.fs, E4_ROOT_INO, "/", &wo, &v, &m, NULL), E4_OK);
	/* the root, two trees of 3 directories and 3 files, lost+found */
	ck_assert_uint_ge(m.checked, 13);
	e4_fs_close(m.fs);
}
END_TEST

/* A block map that names a block outside the filesystem is refused (the
 * runs before it are kept) and reported, never read. */
static unsigned int errors;

static void count_errors(void *arg, const struct e4_diag *d)
{
	(void)arg;
	if (d->level == E4_DIAG_ERROR)
		errors++;
}

START_TEST(test_block_map_outside_refused)
{
	struct e4_fs_options opt = { .diag = count_errors };
	struct e4_fs_info info;
	struct e4_inode in;
	struct e4_fs *fs;
	struct e4_run *runs;
	size_t nruns;
	uint32_t ino;
	uint8_t *leaf;

	ck_assert_int_eq(e4_fs_open(&fs, sample_img(), &opt), E4_OK);
	e4_fs_get_info(fs, &info);
	ck_assert_int_eq(e4_path_lookup(fs, "/plain/hello.txt", &ino), E4_OK);
	ck_assert_int_eq(e4_inode_read(fs, ino, NULL, &in), E4_OK);
	ck_assert(in.flags & E4_INODE_EXTENTS_FL);
	/* the first extent of the in-inode tree (ext4_extent at i_block +
	 * 12): its start moved past the end of the filesystem */
	leaf = in.i_block + 12;
	leaf[6] = 0xff, leaf[7] = 0xff;         /* ee_start_hi */
	errors = 0;
	ck_assert_int_eq(e4_inode_runs(fs, &in, "/plain/hello.txt", 1, &runs, &nruns),
			 E4_CORRUPT);
	ck_assert_ptr_null(runs);
	ck_assert_uint_eq(errors, 1);
	ck_assert_uint_gt(0xffffull << 32, info.blocks_count);
	e4_fs_close(fs);
}
END_TEST

/* --- dir ----------------------------------------------------------- */

/* The names the kernel wrote in /secret (testvectors/sample/
 * sample.manifest, hex-decoded), sorted by bytes. */
static const char *const secret_names[] = {
	"empty", "hello.txt", "link", "sub", "\xe6\x97\xa5\xe6\x9c\xac.txt",
};

START_TEST(test_dir_decrypted_names_are_the_kernels)
{
	struct e4_keystore *ks = sample_keys();
	struct e4_fs *fs = open_sample(ks);
	struct e4_inode in;
	struct e4_dir *d;
	uint32_t ino;

	ck_assert_int_eq(e4_path_lookup(fs, "/secret", &ino), E4_OK);
	ck_assert_int_eq(e4_inode_read(fs, ino, NULL, &in), E4_OK);
	ck_assert(in.encrypted);
	ck_assert_int_eq(e4_dir_list(fs, &in, "/secret", 0, &d), E4_OK);
	ck_assert(e4_dir_facts(d)->encrypted && e4_dir_facts(d)->have_key);
	ck_assert_uint_eq(e4_dir_count(d), 5);
	for (size_t i = 0; i < e4_dir_count(d); i++) {
		struct e4_entry e;

		e4_dir_get(d, i, &e);
		ck_assert_int_eq(e.state, E4_NAME_DECRYPTED);
		ck_assert_uint_eq(e.name_len, strlen(secret_names[i]));
		ck_assert(!memcmp(e.name, secret_names[i], e.name_len));
		/* the stored name is the ciphertext, padded to 16 or 32 */
		ck_assert_uint_ge(e.raw_len, 16);
		ck_assert(e.raw_len != e.name_len || memcmp(e.raw, e.name, e.name_len));
	}
	e4_dir_free(d);
	e4_fs_close(fs);
	e4_keystore_free(ks);
}
END_TEST

/* Without the key: no-key names, each finding its entry; with the key the
 * same no-key names find the same entries (lookups by no-key name). */
START_TEST(test_dir_nokey_names_find_their_entries)
{
	struct e4_keystore *ks = sample_keys();
	struct e4_fs *locked = open_sample(NULL), *open = open_sample(ks);
	struct e4_inode in;
	struct e4_dir *dl, *dk;
	uint32_t ino;

	ck_assert_int_eq(e4_path_lookup(locked, "/secret", &ino), E4_OK);
	ck_assert_int_eq(e4_inode_read(locked, ino, NULL, &in), E4_OK);
	ck_assert_int_eq(e4_dir_list(locked, &in, "/secret", 0, &dl), E4_OK);
	ck_assert_int_eq(e4_dir_list(open, &in, "/secret", 0, &dk), E4_OK);
	ck_assert(!e4_dir_facts(dl)->have_key);
	ck_assert_uint_eq(e4_dir_count(dl), 5);
	for (size_t i = 0; i < e4_dir_count(dl); i++) {
		struct e4_entry e, f;
		char shown[E4_NOKEY_NAME_MAX + 1];
		size_t k;

		e4_dir_get(dl, i, &e);
		ck_assert_int_eq(e.state, E4_NAME_NOKEY);
		/* base64url (Linux 6.1's alphabet) of at least the 16-byte
		 * ciphertext */
		ck_assert_uint_ge(e.name_len, 22);
		ck_assert_uint_le(e.name_len, E4_NOKEY_NAME_MAX);
		memcpy(shown, e.name, e.name_len);
		shown[e.name_len] = 0;
		ck_assert_uint_eq(strspn(shown,
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
				  e.name_len);
		ck_assert_uint_eq(e4_dir_find(locked, dl, e.name, e.name_len), i);
		k = e4_dir_find(open, dk, e.name, e.name_len);
		ck_assert_uint_lt(k, e4_dir_count(dk));
		e4_dir_get(dk, k, &f);
		ck_assert_uint_eq(f.ino, e.ino);
		ck_assert_int_eq(f.state, E4_NAME_DECRYPTED);
	}
	e4_dir_free(dl);
	e4_dir_free(dk);
	e4_fs_close(locked);
	e4_fs_close(open);
	e4_keystore_free(ks);
}
END_TEST

/* --- source -------------------------------------------------------- */

struct mem {
	const uint8_t *p;
	size_t size;
	size_t step;        /* handle reads: at most this many bytes each */
	int fail_at;        /* handle reads: fail this call (1-based), 0 never */
	int calls;
};

static int mem_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct mem *m = arg;

	if (off > m->size || len > m->size - off) {
		errno = EIO;
		return -1;
	}
	memcpy(buf, m->p + off, len);
	return 0;
}

static void mem_close(void *arg)
{
	(void)arg;
}

static const struct e4_source_ops mem_ops = { mem_read, mem_close };

static uint8_t pattern[4096];

static void fill_pattern(void)
{
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3);
}

START_TEST(test_source_window_bounds)
{
	struct mem m = { pattern, sizeof(pattern), 0, 0, 0 };
	struct e4_source *base, *w;
	uint8_t buf[64];

	fill_pattern();
	ck_assert_int_eq(e4_source_new(&mem_ops, &m, sizeof(pattern), "mem", 1, "raw",
				       &base), E4_OK);
	/* a window past the base is refused */
	ck_assert_int_eq(e4_source_view(base, 4000, 200, &w), E4_INVALID);
	ck_assert_int_eq(e4_source_view(base, 5000, 0, &w), E4_INVALID);
	ck_assert_int_eq(e4_source_view(base, 1024, 1024, &w), E4_OK);
	ck_assert_uint_eq(w->size, 1024);
	ck_assert_int_eq(e4_source_read(w, 1000, buf, 24), E4_OK);
	ck_assert(!memcmp(buf, pattern + 2024, 24));
	/* reads past the window's end fail, also when the base has bytes */
	ck_assert_int_eq(e4_source_read(w, 1000, buf, 25), E4_IO);
	ck_assert_int_eq(e4_source_read(w, 1025, buf, 1), E4_IO);
	ck_assert_int_eq(e4_source_read(w, UINT64_MAX - 4, buf, 8), E4_IO);
	e4_source_close(w);
	e4_source_close(base);
}
END_TEST

static ssize_t h_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct mem *m = h;
	size_t n = len < m->step ? len : m->step;

	if (++m->calls == m->fail_at)
		return -1;
	if (off >= m->size)
		return 0;
	if (n > m->size - off)
		n = (size_t)(m->size - off);
	memcpy(buf, m->p + off, n);
	return (ssize_t)n;
}

static void h_close(void *h)
{
	(void)h;
}

static void *h_reopen(void *ctx)
{
	(void)ctx;
	return NULL;
}

static void h_free_ctx(void *ctx)
{
	(void)ctx;
}

static const struct e4_handle_ops h_ops = { h_read_at, h_close, h_reopen, h_free_ctx };

START_TEST(test_source_handles_short_and_failed_reads)
{
	struct mem m = { pattern, sizeof(pattern), 3, 0, 0 };
	struct e4_source *s;
	uint8_t buf[100];

	fill_pattern();
	ck_assert_int_eq(e4_source_handles(&h_ops, NULL, &m, sizeof(pattern), "lib",
					   "TEST", &s), E4_OK);
	/* a library giving 3 bytes a call: asked again until all are read */
	ck_assert_int_eq(e4_source_read(s, 10, buf, sizeof(buf)), E4_OK);
	ck_assert(!memcmp(buf, pattern + 10, sizeof(buf)));
	ck_assert_int_eq(m.calls, 34);
	/* a library failing in the middle: the read fails, whatever the
	 * buffer holds is not handed on as data */
	m.calls = 0;
	m.fail_at = 5;
	ck_assert_int_eq(e4_source_read(s, 10, buf, sizeof(buf)), E4_IO);
	/* a library answering 0 (its end) before the source's size */
	m.calls = 0;
	m.fail_at = 0;
	m.size = 50;
	ck_assert_int_eq(e4_source_read(s, 40, buf, 20), E4_IO);
	e4_source_close(s);
}
END_TEST

static Suite *image_suite(void)
{
	Suite *s = suite_create("image");
	TCase *t = tcase_create("blockmap");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_block_maps_match_debugfs);
	tcase_add_test(t, test_block_map_outside_refused);
	suite_add_tcase(s, t);
	t = tcase_create("dir");
	tcase_add_test(t, test_dir_decrypted_names_are_the_kernels);
	tcase_add_test(t, test_dir_nokey_names_find_their_entries);
	suite_add_tcase(s, t);
	t = tcase_create("source");
	tcase_add_test(t, test_source_window_bounds);
	tcase_add_test(t, test_source_handles_short_and_failed_reads);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(image_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

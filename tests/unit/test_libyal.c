/* The handles the libyal readers are given (image/source/libyal.c), read
 * through libbfio as the libraries read them: a read inside the file
 * gives exactly its bytes, a read that runs past the end fails and
 * leaves the buffer as it was (E4_BFIO_SHORT: the bytes up to the end, a
 * count that says so, the rest zeros); a symbolic link is refused unless
 * followed, a FIFO at once (an alarm fails a hang), also as the image
 * itself (e4_source_open_file); a pool names the member it refuses. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libyal.h"
#include "source.h"

static char dir[64], file[128], link_[128], fifo[128];
static uint8_t content[1000];

static void setup(void)
{
	FILE *f;

	strcpy(dir, "/tmp/e4-test-libyal-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/member", dir);
	snprintf(link_, sizeof(link_), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	for (size_t i = 0; i < sizeof(content); i++)
		content[i] = (uint8_t)(i * 7 + 3);
	f = fopen(file, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(content, 1, sizeof(content), f), sizeof(content));
	fclose(f);
	ck_assert_int_eq(symlink(file, link_), 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	alarm(20); /* a FIFO opened without O_NONBLOCK would wait for ever */
}

static void teardown(void)
{
	alarm(0);
	unlink(file);
	unlink(link_);
	unlink(fifo);
	rmdir(dir);
}

static ssize_t read_at(libbfio_handle_t *h, uint64_t off, uint8_t *buf, size_t len)
{
	if (libbfio_handle_seek_offset(h, (off64_t)off, SEEK_SET, NULL) != (off64_t)off)
		return -2;
	return libbfio_handle_read_buffer(h, buf, len, NULL);
}

START_TEST(reads_stay_inside)
{
	char why[512];
	uint8_t buf[300];
	libbfio_handle_t *h = e4_bfio_open(E4_DL_BFIO, file, 0, why, sizeof(why));
	size64_t size = 0;

	ck_assert_msg(h != NULL, "%s", why);
	ck_assert_int_eq(libbfio_handle_get_size(h, &size, NULL), 1);
	ck_assert_uint_eq(size, sizeof(content));
	ck_assert_int_eq(read_at(h, 900, buf, 100), 100);
	ck_assert_mem_eq(buf, content + 900, 100);
	ck_assert_ptr_null(e4_bfio_refused(E4_DL_BFIO, h));
	/* 100 bytes in the file, 200 past it: refused, nothing written */
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(read_at(h, 900, buf, 300), -1);
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xa5);
	ck_assert_ptr_nonnull(e4_bfio_refused(E4_DL_BFIO, h));
	ck_assert_ptr_nonnull(strstr(e4_bfio_refused(E4_DL_BFIO, h), "runs past the end of the file"));
	ck_assert_int_eq(read_at(h, 1000, buf, 1), -1);
	ck_assert_int_eq(read_at(h, 0, buf, 300), 300);
	ck_assert_mem_eq(buf, content, 300);
	libbfio_handle_free(&h, NULL);
}
END_TEST

START_TEST(short_reads_when_asked)
{
	char why[512];
	uint8_t buf[300];
	libbfio_handle_t *h = e4_bfio_open(E4_DL_BFIO, file, E4_BFIO_SHORT, why, sizeof(why));

	ck_assert_msg(h != NULL, "%s", why);
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(read_at(h, 900, buf, 300), 100);
	ck_assert_mem_eq(buf, content + 900, 100);
	for (size_t i = 100; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0);
	libbfio_handle_free(&h, NULL);
}
END_TEST

START_TEST(symlinks_and_fifos)
{
	char why[512] = "";
	libbfio_handle_t *h;
	struct e4_source *s = NULL;

	ck_assert_ptr_null(e4_bfio_open(E4_DL_BFIO, link_, 0, why, sizeof(why)));
	ck_assert_msg(strstr(why, "a symbolic link") && strstr(why, link_), "%s", why);
	h = e4_bfio_open(E4_DL_BFIO, link_, E4_BFIO_FOLLOW, why, sizeof(why));
	ck_assert_msg(h != NULL, "%s", why);
	libbfio_handle_free(&h, NULL);
	ck_assert_ptr_null(e4_bfio_open(E4_DL_BFIO, fifo, E4_BFIO_FOLLOW, why, sizeof(why)));
	ck_assert_msg(strstr(why, "not a regular file or block device"), "%s", why);
	ck_assert_ptr_null(e4_bfio_open(E4_DL_BFIO, dir, E4_BFIO_FOLLOW, why, sizeof(why)));
	/* the image itself */
	ck_assert_int_eq(e4_source_open_file(fifo, &s), E4_IO);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(e4_source_open_file(link_, &s), E4_OK);
	ck_assert_uint_eq(s->size, sizeof(content));
	e4_source_close(s);
}
END_TEST

START_TEST(pools_name_the_member)
{
	char why[512] = "", *names[3] = { file, NULL, link_ };
	libbfio_pool_t *p;

	/* the name given may be a link; the others may not */
	ck_assert_ptr_null(e4_bfio_pool(E4_DL_BFIO, "segment", names, 3, file, why, sizeof(why)));
	ck_assert_msg(strstr(why, "segment 3 (") && strstr(why, "a symbolic link"), "%s", why);
	p = e4_bfio_pool(E4_DL_BFIO, "segment", names, 3, link_, why, sizeof(why));
	ck_assert_msg(p != NULL, "%s", why);
	libbfio_pool_free(&p, NULL);
	names[1] = fifo;
	ck_assert_ptr_null(e4_bfio_pool(E4_DL_BFIO, "extent file", names, 3, link_, why, sizeof(why)));
	ck_assert_msg(strstr(why, "extent file 2 (") && strstr(why, "not a regular file"), "%s", why);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("libyal");
	TCase *tc = tcase_create("guard");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_stay_inside);
	tcase_add_test(tc, short_reads_when_asked);
	tcase_add_test(tc, symlinks_and_fifos);
	tcase_add_test(tc, pools_name_the_member);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The loader of the libraries some inputs need (image/source/dynlib.c):
 * every library of its table loads here (all are installed where the
 * tests run: a wrong soname or a function missing from a library fails),
 * twice the same; and the reasons it gives when one cannot be, from
 * dlopen's own words (a missing library cannot be made here). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynlib.h"

START_TEST(every_library_loads)
{
	char why[512];

	for (int lib = 0; lib < E4_DL_N; lib++) {
		why[0] = 0;
		ck_assert_msg(!e4_dl_need(lib, why, sizeof(why)), "%s: %s",
			      e4_dl_soname(lib), why);
		ck_assert_int_eq(e4_dl_need(lib, why, sizeof(why)), 0);
	}
	/* libbfio as each libyal library uses it */
	for (int lib = E4_DL_BFIO; lib <= E4_DL_SMRAW; lib++)
		ck_assert_ptr_nonnull(e4_dl_bfio(lib)->handle_initialize);
	ck_assert_ptr_nonnull(e4_dl_ewf()->handle_read_random);
	ck_assert_ptr_nonnull(e4_dl_qcow()->file_read_buffer_at_offset);
	ck_assert_ptr_nonnull(e4_dl_vmdk()->handle_read_buffer_at_offset);
	ck_assert_ptr_nonnull(e4_dl_sparse()->file_import);
	ck_assert_ptr_nonnull(e4_dl_blkid()->do_safeprobe);
	ck_assert_ptr_nonnull(e4_dl_bfio(E4_DL_SMRAW)->pool_get_size);
}
END_TEST

START_TEST(table)
{
	ck_assert_str_eq(e4_dl_soname(E4_DL_EWF), "libewf.so.2");
	ck_assert_str_eq(e4_dl_package(E4_DL_EWF), "libewf2");
	ck_assert_str_eq(e4_dl_soname(E4_DL_FUSE), "libfuse3.so.3");
	ck_assert_str_eq(e4_dl_package(E4_DL_FUSE), "libfuse3-3");
	ck_assert_str_eq(e4_dl_package(E4_DL_SPARSE), "android-libsparse");
	for (int lib = 0; lib < E4_DL_N; lib++)
		ck_assert(e4_dl_soname(lib) && e4_dl_package(lib));
}
END_TEST

START_TEST(reasons)
{
	char why[512];

	e4_dl_why("libewf.so.2", "libewf2",
		  "libewf.so.2: cannot open shared object file: No such file or directory",
		  why, sizeof(why));
	ck_assert_str_eq(why, "libewf.so.2 not found (install the Debian package libewf2)");
	/* a library it needs is missing: that one is named */
	e4_dl_why("libvmdk.so.1", "libvmdk1",
		  "libbfio.so.1: cannot open shared object file: No such file or directory",
		  why, sizeof(why));
	ck_assert_str_eq(why, "libvmdk.so.1 cannot be loaded: libbfio.so.1: cannot open shared object file: No such file or directory (install the Debian package libvmdk1)");
	e4_dl_why("libewf.so.2", "libewf2", "/tmp/x/libewf.so.2: file too short", why,
		  sizeof(why));
	ck_assert_str_eq(why, "libewf.so.2 cannot be loaded: /tmp/x/libewf.so.2: file too short (install the Debian package libewf2)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dynlib");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, every_library_loads);
	tcase_add_test(tc, table);
	tcase_add_test(tc, reasons);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#include <check.h>
#include <stdlib.h>

Suite *lib_suite(void);
Suite *core_suite(void);
Suite *kat_suite(void);
Suite *modes_kat_suite(void);
Suite *testmgr_suite(void);
Suite *jbd2_suite(void);
Suite *fscrypt_tool_suite(void);
Suite *memkeys_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(lib_suite());
	int failed;

	srunner_add_suite(sr, core_suite());
	srunner_add_suite(sr, kat_suite());
	srunner_add_suite(sr, modes_kat_suite());
	srunner_add_suite(sr, jbd2_suite());
	srunner_add_suite(sr, fscrypt_tool_suite());
	srunner_add_suite(sr, memkeys_suite());
	/* Every vector of the kernel's templates, when extracted (ctest
	 * unit.testmgr sets this). */
	if (getenv("E4_TESTMGR_KAT"))
		srunner_add_suite(sr, testmgr_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* e4_keyfile_parse: a key file's bytes, raw or hex text. */
#include "fuzz_common.h"
#include "keyfile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t key[E4_MAX_KEY_SIZE];
	size_t len = 99;
	const char *why = NULL;
	enum e4_status st = e4_keyfile_parse(data, size, key, &len, &why);

	if (st == E4_OK) {
		if (len < E4_MASTER_KEY_MIN || len > E4_MAX_KEY_SIZE)
			__builtin_trap();
	} else {
		if (st != E4_BAD_KEY || len != 0 || !why)
			__builtin_trap();
	}
	return 0;
}

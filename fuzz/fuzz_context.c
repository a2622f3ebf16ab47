/* e4_context_parse and the helpers over a parsed context. */
#include <string.h>
#include "context.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_context a, b;
	enum e4_status st;
	const char *why;
	char hex[33];

	st = e4_context_parse(&a, data, size);
	why = e4_context_problem(data, size);
	if (!why || (st == E4_OK) != !strcmp(why, "valid"))
		__builtin_trap(); /* the words must agree with the result */
	if (st == E4_OK || st == E4_UNRECOGNIZED) {
		e4_context_key_id_hex(&a, hex);
		if (strlen(hex) != 2u * a.key_id_size)
			__builtin_trap();
	}
	if (st == E4_OK) {
		unsigned int pad = e4_context_name_padding(&a);

		if (pad != 4 && pad != 8 && pad != 16 && pad != 32)
			__builtin_trap();
		memcpy(&b, &a, sizeof(b));
		b.nonce[0] ^= 1;
		if (!e4_context_same_policy(&a, &b))
			__builtin_trap();
	}
	return 0;
}

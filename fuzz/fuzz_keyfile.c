/* e4_keyfile_parse and e4_keyfile_read: a key file's bytes, raw, hex
 * text or the HKDF states form; a states file read back from what
 * e4_keyfile_format_states writes for its states. */
#include <string.h>
#include "fuzz_common.h"
#include "kdf.h"
#include "keyfile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

static void states_round_trip(const struct e4_keyfile *kf)
{
	char text[E4_KEYFILE_STATES_TEXT_MAX];
	struct e4_keyfile back;
	const char *why;
	size_t n = e4_keyfile_format_states(&kf->states, text, sizeof(text));

	if (!n || n >= sizeof(text) ||
	    e4_keyfile_read((const uint8_t *)text, n, &back, &why) != E4_OK ||
	    !back.is_states || memcmp(&back.states, &kf->states, sizeof(back.states)) ||
	    memcmp(back.identifier, kf->identifier, sizeof(back.identifier)))
		__builtin_trap();
	e4_wipe(&back, sizeof(back));
	e4_wipe(text, sizeof(text));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t key[E4_MAX_KEY_SIZE];
	size_t len = 99;
	const char *why = NULL;
	struct e4_keyfile kf;
	enum e4_status st = e4_keyfile_parse(data, size, key, &len, &why);

	if (st == E4_OK) {
		if (len < E4_MASTER_KEY_MIN || len > E4_MAX_KEY_SIZE)
			__builtin_trap();
	} else {
		if (st != E4_BAD_KEY || len != 0 || !why)
			__builtin_trap();
	}
	st = e4_keyfile_read(data, size, &kf, &why);
	if (st == E4_OK) {
		if (why || (!kf.is_states && (kf.key_len < E4_MASTER_KEY_MIN ||
					      kf.key_len > E4_MAX_KEY_SIZE)))
			__builtin_trap();
		if (kf.is_states)
			states_round_trip(&kf);
	} else if (st != E4_BAD_KEY || !why || kf.is_states || kf.key_len) {
		__builtin_trap();
	}
	e4_wipe(&kf, sizeof(kf));
	e4_wipe(key, sizeof(key));
	return 0;
}

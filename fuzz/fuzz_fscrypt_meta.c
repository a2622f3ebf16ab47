/* The fscrypt tool's metadata files (lib/fscrypt_tool.h): the first byte
 * chooses what the rest is read as: 0 a protector, 1 a policy, 2 a .link
 * file; 3 a protector whose key is then unwrapped with a fixed key and
 * its costs checked and, when small, hashed with.  The parsers' promises
 * are checked: fixed-size hex descriptors, wrapped keys of 32 or 64 bytes,
 * sane costs of what passes. */
#include <string.h>
#include "fscrypt_tool.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

static void check_hex(const char *s, size_t n)
{
	if (strlen(s) != n || strspn(s, "0123456789abcdef") != n)
		__builtin_trap();
}

static void protector(const uint8_t *d, size_t n, int deep)
{
	struct e4_fsc_protector p;
	const char *why = NULL;
	enum e4_status st = e4_fsc_protector_parse(d, n, &p, &why);
	uint8_t key[E4_FSC_KEY] = { 0 }, out[E4_FSC_POLICY_KEY];
	char w[200];

	if (st != E4_OK) {
		if (!why && st != E4_NOMEM)
			__builtin_trap();
		return;
	}
	check_hex(p.descriptor, E4_FSC_PROTECTOR_DESC);
	if (p.wrapped.key_len != E4_FSC_KEY || p.source < 1 || p.source > 3)
		__builtin_trap();
	if (p.source != E4_FSC_RAW_KEY &&
	    (p.costs.time <= 0 || p.costs.parallelism <= 0 ||
	     p.costs.memory < 8 * p.costs.parallelism))
		__builtin_trap();
	if (deep) {
		st = e4_fsc_unwrap(out, key, &p.wrapped);
		if (st != E4_OK && st != E4_BAD_KEY)
			__builtin_trap();
		if (p.source != E4_FSC_RAW_KEY &&
		    e4_fsc_check_costs(&p.costs, 256, 2, w, sizeof(w)) == E4_OK &&
		    e4_fsc_passphrase_hash(key, d, n < 64 ? n : 64, p.salt, &p.costs,
					   256, 2) != E4_OK)
			__builtin_trap();
	}
	e4_fsc_protector_free(&p);
}

static void policy(const uint8_t *d, size_t n)
{
	struct e4_fsc_policy p;
	const char *why = NULL;
	enum e4_status st = e4_fsc_policy_parse(d, n, &p, &why);

	if (st != E4_OK) {
		if (!why && st != E4_NOMEM)
			__builtin_trap();
		return;
	}
	check_hex(p.descriptor, p.version == 1 ? E4_FSC_POLICY_DESC_V1 :
						 E4_FSC_POLICY_DESC_V2);
	for (size_t i = 0; i < p.n_slots; i++) {
		check_hex(p.slots[i].protector, E4_FSC_PROTECTOR_DESC);
		if (p.slots[i].wrapped.key_len != E4_FSC_POLICY_KEY)
			__builtin_trap();
	}
	e4_fsc_policy_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_fsc_link l;
	const char *why;

	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0: protector(data + 1, size - 1, 0); break;
	case 1: policy(data + 1, size - 1); break;
	case 2:
		if (e4_fsc_link_parse(data + 1, size - 1, &l, &why) == E4_OK &&
		    ((!l.has_uuid && !l.path_len) ||
		     (l.path_len && (l.path < data + 1 || l.path + l.path_len > data + size))))
			__builtin_trap();
		break;
	default: protector(data + 1, size - 1, 1); break;
	}
	return 0;
}

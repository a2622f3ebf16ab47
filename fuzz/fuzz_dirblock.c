/* Directory blocks, byte by byte: the first byte chooses the block size
 * (1, 2, 4 or 64 KiB), whether entries store a casefold hash pair and
 * whether dx blocks end in a checksum tail; the rest is the block (zero
 * padded).  Every entry e4_dirblock_next accepts is read to its name and
 * hash; the block is also parsed as a dx_root and as a dx_node and every
 * dx entry is read. */
#include <stdlib.h>
#include <string.h>
#include "dirblock.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[4] = { 1024, 2048, 4096, 65536 };
	struct e4_dirblock_rules rules;
	struct e4_dirent de;
	struct e4_dx_node dx;
	const char *why;
	uint8_t *blk;
	size_t off = 0, bs;
	unsigned int sum = 0;

	if (size < 1)
		return 0;
	bs = sizes[data[0] & 3];
	blk = calloc(1, bs);
	if (!blk)
		abort();
	memcpy(blk, data + 1, size - 1 < bs ? size - 1 : bs);
	memset(&rules, 0, sizeof(rules));
	rules.block_size = bs;
	rules.inodes_count = data[0] & 0x10 ? 0 : 1u << 20;
	rules.hashed = (data[0] & 4) != 0;
	while (e4_dirblock_next(blk, &rules, &off, &de, &why) == E4_OK) {
		for (size_t i = 0; i < de.name_len; i++)
			sum += de.name[i];
		sum += de.hash ^ de.minor_hash ^ (unsigned int)e4_dirent_is_dot(&de);
	}
	for (int kind = 0; kind < 2; kind++) {
		enum e4_status st = kind ?
			e4_dx_node_parse(blk, bs, (data[0] & 8) != 0, &dx, &why) :
			e4_dx_root_parse(blk, bs, (data[0] & 8) != 0,
					 data[0] & 0x20 ? 3 : 2, &dx, &why);

		if (st != E4_OK)
			continue;
		for (unsigned int i = 0; i < dx.count; i++) {
			uint32_t h, l;

			e4_dx_entry(&dx, i, &h, &l);
			sum += h ^ l;
		}
	}
	free(blk);
	return (int)(sum & 0);
}

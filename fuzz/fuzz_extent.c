/* Extent trees and indirect block maps, byte by byte: the input is the 60
 * bytes of i_block, then tree blocks of 1 KiB; physical block b of the
 * filesystem is input block b - 1 (block 0 is below the data blocks).
 * The first byte of the input chooses the map kind (extents or indirect)
 * and lblk_end; both walkers run over the same bytes, each tree block
 * read at most once, depth and ranges checked before use. */
#include <stdlib.h>
#include <string.h>
#include "extent.h"
#include "fuzz_common.h"

#define BS 1024

struct mem {
	const uint8_t *blocks;
	size_t n;               /* input blocks */
	uint64_t sum;
};

static enum e4_status read_block(void *arg, uint64_t pblk, uint8_t *buf)
{
	struct mem *m = arg;

	if (pblk == 0 || pblk > m->n)
		return E4_IO;
	memcpy(buf, m->blocks + (pblk - 1) * BS, BS);
	return E4_OK;
}

static int extent(void *arg, const struct e4_extent *e)
{
	struct mem *m = arg;

	m->sum += e->lblk + e->len + e->pblk + (uint64_t)e->unwritten;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m;
	struct e4_block_range range;
	uint8_t root[E4_EXTENT_ROOT_SIZE];
	const char *why;
	uint64_t bad, end;

	if (size < 1 + E4_EXTENT_ROOT_SIZE)
		return 0;
	memcpy(root, data + 1, E4_EXTENT_ROOT_SIZE);
	m.blocks = data + 1 + E4_EXTENT_ROOT_SIZE;
	m.n = (size - 1 - E4_EXTENT_ROOT_SIZE) / BS;
	m.sum = 0;
	/* block 0 and a little beyond the input are "in the filesystem" */
	range.first_data_block = 0;
	range.blocks = m.n + 1 + (data[0] & 0x0f);
	end = data[0] & 0x80 ? ((uint64_t)1 << 32) : (uint64_t)(data[0] & 0x70) << 8;
	e4_extent_walk(root, BS, &range, end, read_block, extent, &m, &why, &bad);
	e4_indirect_walk(root, BS, &range, end, read_block, extent, &m, &why, &bad);
	return (int)(m.sum & 0);
}

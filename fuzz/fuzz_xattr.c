/* Extended attributes, byte by byte: the first byte chooses in-inode area
 * or xattr block and the attribute looked up (the encryption context,
 * index 9 "c", or inline data, index 7 "data"); the rest is the area (up
 * to 1 KiB: an inode's tail) or the block (1 KiB).  Every value found is
 * read to its end, and so is every entry the listing's walk passes. */
#include <stdlib.h>
#include <string.h>
#include "fscrypt_disk.h"
#include "fuzz_common.h"
#include "xattr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

/* every value byte and name of an entry the walk passes */
static int touch(void *arg, const struct e4_xattr *x)
{
	unsigned int *sum = arg;

	for (size_t i = 0; x->value && i < x->value_len; i++)
		*sum += x->value[i];
	for (size_t i = 0; i < x->name_len; i++)
		*sum += x->name[i];
	*sum += (unsigned int)strlen(e4_xattr_prefix(x->index, NULL));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_xattr x;
	const char *why;
	uint8_t *buf;
	size_t n;
	unsigned int sum = 0;
	enum e4_status st;
	int ctx;

	if (size < 1)
		return 0;
	ctx = data[0] & 2;
	n = size - 1 < 1024 ? size - 1 : 1024;
	if (data[0] & 1)
		n = 1024; /* a block is always whole */
	buf = calloc(1, n ? n : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 1, size - 1 < n ? size - 1 : n);
	if (data[0] & 1)
		st = e4_xattr_find_block(buf, n, ctx ? E4_XATTR_INDEX_ENCRYPTION :
					 E4_XATTR_INDEX_SYSTEM,
					 ctx ? E4_XATTR_NAME_CONTEXT : "data", &x, &why);
	else
		st = e4_xattr_find_ibody(buf, n, ctx ? E4_XATTR_INDEX_ENCRYPTION :
					 E4_XATTR_INDEX_SYSTEM,
					 ctx ? E4_XATTR_NAME_CONTEXT : "data", &x, &why);
	if (st == E4_OK && x.value)
		for (size_t i = 0; i < x.value_len; i++)
			sum += x.value[i];
	/* the listing's walk over the same bytes */
	if (data[0] & 1)
		(void)e4_xattr_each_block(buf, n, touch, &sum, &why);
	else
		(void)e4_xattr_each_ibody(buf, n, touch, &sum, &why);
	free(buf);
	return (int)(sum & 0);
}

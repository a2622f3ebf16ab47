/* jbd2 journal blocks, byte by byte: the input is a 1 KiB journal
 * superblock followed by 1 KiB log blocks.  The superblock is parsed as the
 * filesystem's block size says (1 KiB); when it is accepted, every later
 * block that starts with the jbd2 magic is read as what its type says
 * (descriptor tags, revoke records, commit), each within its block.  Then
 * the whole input is walked as a journal (image/journal.c: transactions,
 * copies, checksums), and every copy it lists is read back. */
#include <string.h>
#include "jbd2.h"
#include "journal.h"
#include "fuzz_common.h"

#define BS 1024

static int tag(void *arg, unsigned int i, const struct e4_jbd2_tag *t)
{
	uint64_t *sum = arg;

	*sum += i + t->fs_block + t->flags + t->checksum;
	return 0;
}

static int revoke(void *arg, uint64_t b)
{
	uint64_t *sum = arg;

	*sum += b;
	return 0;
}

struct input {
	const uint8_t *data;
	size_t blocks;
};

static enum e4_status read_block(void *arg, uint32_t jb, uint8_t *buf)
{
	const struct input *in = arg;

	if (jb >= in->blocks)
		return E4_IO;
	memcpy(buf, in->data + (size_t)jb * BS, BS);
	return E4_OK;
}

static void walk(const uint8_t *data, size_t size, int fast_commit)
{
	struct input in = { data, size / BS };
	struct e4_journal *j;
	const char *why;
	uint8_t buf[BS];

	if (e4_journal_load(read_block, &in, (uint32_t)in.blocks, BS, fast_commit,
			    &j, &why) != E4_OK)
		return;
	for (size_t i = 0; i < e4_journal_ncopies(j); i++) {
		const struct e4_jcopy *c = e4_journal_copy(j, i);
		size_t first;

		(void)e4_journal_read_copy(j, c, buf);
		(void)e4_journal_block_copies(j, c->fs_block, &first);
	}
	for (size_t i = 0; i < e4_journal_nrevokes(j); i++)
		(void)e4_journal_revoke(j, i);
	e4_journal_free(j);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_jbd2_sb sb;
	const char *why = NULL;
	uint64_t sum = 0;
	size_t n;

	if (size < BS)
		return 0;
	if (e4_jbd2_sb_parse(data, BS, BS, &sb, &why) != E4_OK)
		return 0;
	(void)e4_jbd2_tag_size(&sb);
	for (n = 1; (n + 1) * BS <= size; n++) {
		const uint8_t *b = data + n * BS;
		uint32_t type, seq;
		unsigned int count;
		struct e4_jbd2_commit c;

		if (!e4_jbd2_header(b, BS, &type, &seq))
			continue;
		switch (type) {
		case E4_JBD2_DESCRIPTOR:
			(void)e4_jbd2_tags(&sb, b, tag, &sum, &count, &why);
			break;
		case E4_JBD2_REVOKE:
			(void)e4_jbd2_revokes(&sb, b, revoke, &sum, &count, &why);
			break;
		case E4_JBD2_COMMIT:
			e4_jbd2_commit_parse(b, &c);
			sum += c.sec + c.nsec;
			break;
		default:
			break;
		}
	}
	walk(data, size, (int)(size & 1));
	return (int)(sum & 0);
}

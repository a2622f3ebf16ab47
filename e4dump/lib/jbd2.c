/* jbd2 journal blocks (include/linux/jbd2.h, fs/jbd2/recovery.c). */
#include "jbd2.h"

#include <string.h>
#include "byteorder.h"

#define JBD2_SB_MIN 1024          /* the superblock's own size */
#define JBD2_TAIL_SIZE 4          /* struct jbd2_journal_block_tail */
#define JBD2_REVOKE_HEADER 16     /* jbd2_journal_revoke_header_t */
#define JBD2_DEFAULT_FC_BLOCKS 256 /* JBD2_DEFAULT_FAST_COMMIT_BLOCKS */
#define JBD2_UUID_SIZE 16

int e4_jbd2_header(const uint8_t *buf, size_t len, uint32_t *type,
		   uint32_t *sequence)
{
	if (len < E4_JBD2_HEADER_SIZE || e4_be32(buf) != E4_JBD2_MAGIC)
		return 0;
	*type = e4_be32(buf + 4);
	*sequence = e4_be32(buf + 8);
	return 1;
}

static int csum_v2or3(const struct e4_jbd2_sb *sb)
{
	return !!(sb->incompat & (E4_JBD2_INCOMPAT_CSUM_V2 | E4_JBD2_INCOMPAT_CSUM_V3));
}

enum e4_status e4_jbd2_sb_parse(const uint8_t *buf, size_t len,
				uint32_t fs_block_size, struct e4_jbd2_sb *sb,
				const char **why)
{
	uint32_t type, seq;

	memset(sb, 0, sizeof(*sb));
	if (len < JBD2_SB_MIN || !e4_jbd2_header(buf, len, &type, &seq)) {
		*why = "no jbd2 magic in the journal superblock";
		return E4_CORRUPT;
	}
	if (type != E4_JBD2_SUPERBLOCK_V1 && type != E4_JBD2_SUPERBLOCK_V2) {
		*why = "journal block 0 is not a jbd2 superblock";
		return E4_CORRUPT;
	}
	sb->version = type == E4_JBD2_SUPERBLOCK_V1 ? 1 : 2;
	sb->block_size = e4_be32(buf + 0x0c);
	sb->maxlen = e4_be32(buf + 0x10);
	sb->first = e4_be32(buf + 0x14);
	sb->sequence = e4_be32(buf + 0x18);
	sb->start = e4_be32(buf + 0x1c);
	sb->error = (int32_t)e4_be32(buf + 0x20);
	if (sb->version == 2) {
		/* the kernel reads the feature words of a v2 superblock only
		 * (JBD2_HAS_INCOMPAT_FEATURE) */
		sb->compat = e4_be32(buf + 0x24);
		sb->incompat = e4_be32(buf + 0x28);
		sb->ro_compat = e4_be32(buf + 0x2c);
		memcpy(sb->uuid, buf + 0x30, 16);
		sb->nr_users = e4_be32(buf + 0x40);
		sb->checksum_type = buf[0x50];
		sb->fc_blocks = e4_be32(buf + 0x54);
		sb->checksum = e4_be32(buf + 0xfc);
	}
	if (sb->block_size != fs_block_size) {
		*why = "journal block size differs from the filesystem's";
		return E4_CORRUPT;
	}
	if (sb->first < 1 || sb->first >= sb->maxlen) {
		*why = "s_first outside the journal";
		return E4_CORRUPT;
	}
	sb->log_end = sb->maxlen;
	if (sb->incompat & E4_JBD2_INCOMPAT_FAST_COMMIT) {
		/* jbd2_journal_get_num_fc_blks; the fast-commit area ends the
		 * journal (jbd2_journal_initialize_fast_commit) */
		uint32_t fc = sb->fc_blocks ? sb->fc_blocks : JBD2_DEFAULT_FC_BLOCKS;

		if (fc >= sb->maxlen - sb->first) {
			*why = "the fast-commit area leaves no log";
			return E4_CORRUPT;
		}
		sb->log_end = sb->maxlen - fc;
	}
	if (sb->start && (sb->start < sb->first || sb->start >= sb->log_end)) {
		*why = "s_start outside the log";
		return E4_CORRUPT;
	}
	if (sb->incompat & ~(uint32_t)E4_JBD2_INCOMPAT_KNOWN) {
		*why = "unknown jbd2 incompat features";
		return E4_UNRECOGNIZED;
	}
	return E4_OK;
}

size_t e4_jbd2_tag_size(const struct e4_jbd2_sb *sb)
{
	size_t sz;

	if (sb->incompat & E4_JBD2_INCOMPAT_CSUM_V3)
		return 16;                      /* journal_block_tag3_t */
	sz = 12;                                /* journal_block_tag_t */
	if (sb->incompat & E4_JBD2_INCOMPAT_CSUM_V2)
		sz += 2;
	return sb->incompat & E4_JBD2_INCOMPAT_64BIT ? sz : sz - 4;
}

/* The end of the space descriptor and revoke blocks may use. */
static size_t usable(const struct e4_jbd2_sb *sb)
{
	return sb->block_size - (csum_v2or3(sb) ? JBD2_TAIL_SIZE : 0);
}

enum e4_status e4_jbd2_tags(const struct e4_jbd2_sb *sb, const uint8_t *buf,
			    e4_jbd2_tag_fn fn, void *arg, unsigned int *count,
			    const char **why)
{
	size_t off = E4_JBD2_HEADER_SIZE, end = usable(sb), tsize = e4_jbd2_tag_size(sb);
	int v3 = !!(sb->incompat & E4_JBD2_INCOMPAT_CSUM_V3);
	int big = !!(sb->incompat & E4_JBD2_INCOMPAT_64BIT);

	*count = 0;
	for (;;) {
		struct e4_jbd2_tag t;
		const uint8_t *p = buf + off;

		if (off + tsize > end) {
			if (*count)
				return E4_OK;  /* the block is full: no LAST_TAG needed */
			*why = "descriptor block without a tag";
			return E4_CORRUPT;
		}
		t.fs_block = e4_be32(p);
		if (v3) {
			t.flags = e4_be32(p + 4);
			t.checksum = e4_be32(p + 12);
		} else {
			t.checksum = e4_be16(p + 4);
			t.flags = e4_be16(p + 6);
			if (!(sb->incompat & E4_JBD2_INCOMPAT_CSUM_V2))
				t.checksum = 0;
		}
		if (big)
			t.fs_block |= (uint64_t)e4_be32(p + 8) << 32;
		off += tsize;
		if (!(t.flags & E4_JBD2_FLAG_SAME_UUID)) {
			if (off + JBD2_UUID_SIZE > end) {
				*why = "descriptor tag's UUID runs past the block";
				return E4_CORRUPT;
			}
			off += JBD2_UUID_SIZE;
		}
		if (fn && fn(arg, *count, &t)) {
			++*count;
			return E4_STOPPED;
		}
		++*count;
		if (t.flags & E4_JBD2_FLAG_LAST_TAG)
			return E4_OK;
	}
}

enum e4_status e4_jbd2_revokes(const struct e4_jbd2_sb *sb, const uint8_t *buf,
			       e4_jbd2_revoke_fn fn, void *arg,
			       unsigned int *count, const char **why)
{
	size_t rec = sb->incompat & E4_JBD2_INCOMPAT_64BIT ? 8 : 4;
	uint32_t used = e4_be32(buf + E4_JBD2_HEADER_SIZE);

	*count = 0;
	if (used < JBD2_REVOKE_HEADER || used > usable(sb)) {
		*why = "revoke block: r_count out of bounds";
		return E4_CORRUPT;
	}
	/* a partial record at the end is ignored, as scan_revoke_records does */
	for (size_t off = JBD2_REVOKE_HEADER; off + rec <= used; off += rec) {
		uint64_t b = rec == 8 ? (uint64_t)e4_be32(buf + off) << 32 | e4_be32(buf + off + 4)
				      : e4_be32(buf + off);

		++*count;
		if (fn && fn(arg, b))
			return E4_STOPPED;
	}
	return E4_OK;
}

void e4_jbd2_commit_parse(const uint8_t *buf, struct e4_jbd2_commit *out)
{
	out->checksum_type = buf[12];
	out->checksum_size = buf[13];
	out->checksum = e4_be32(buf + 16);
	out->sec = (uint64_t)e4_be32(buf + 0x30) << 32 | e4_be32(buf + 0x34);
	out->nsec = e4_be32(buf + 0x38);
}

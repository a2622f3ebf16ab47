/* The jbd2 block parsers (lib/jbd2.c) on hand-made journal blocks.  The
 * layouts and the expected values follow Linux 6.1 include/linux/jbd2.h
 * (journal_superblock_t, journal_block_tag3_t, journal_block_tag_t,
 * jbd2_journal_revoke_header_t, struct commit_header, journal_tag_bytes)
 * and fs/jbd2/recovery.c (count_tags, scan_revoke_records). */
#include <check.h>
#include <string.h>
#include "jbd2.h"

#define BS 1024

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void header(uint8_t *b, uint32_t type, uint32_t seq)
{
	memset(b, 0, BS);
	put32(b, E4_JBD2_MAGIC);
	put32(b + 4, type);
	put32(b + 8, seq);
}

/* a v2 superblock: 1024-byte blocks, 4096 blocks, log from 1 */
static void superblock(uint8_t *b, uint32_t incompat)
{
	header(b, E4_JBD2_SUPERBLOCK_V2, 0);
	put32(b + 0x0c, BS);
	put32(b + 0x10, 4096);
	put32(b + 0x14, 1);
	put32(b + 0x18, 77);
	put32(b + 0x1c, 0);
	put32(b + 0x28, incompat);
	for (int i = 0; i < 16; i++)
		b[0x30 + i] = (uint8_t)(0xa0 + i);
	b[0x50] = 4;
	put32(b + 0xfc, 0x12345678);
}

static struct e4_jbd2_sb parsed(uint32_t incompat)
{
	uint8_t b[BS];
	struct e4_jbd2_sb sb;
	const char *why = NULL;

	superblock(b, incompat);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_OK);
	return sb;
}

START_TEST(jbd2_superblock)
{
	uint8_t b[BS];
	struct e4_jbd2_sb sb;
	const char *why = NULL;

	sb = parsed(E4_JBD2_INCOMPAT_64BIT | E4_JBD2_INCOMPAT_CSUM_V3 | E4_JBD2_INCOMPAT_REVOKE);
	ck_assert_uint_eq(sb.version, 2);
	ck_assert_uint_eq(sb.block_size, BS);
	ck_assert_uint_eq(sb.maxlen, 4096);
	ck_assert_uint_eq(sb.first, 1);
	ck_assert_uint_eq(sb.sequence, 77);
	ck_assert_uint_eq(sb.start, 0);
	ck_assert_uint_eq(sb.uuid[15], 0xaf);
	ck_assert_uint_eq(sb.checksum_type, 4);
	ck_assert_uint_eq(sb.checksum, 0x12345678);
	ck_assert_uint_eq(sb.log_end, 4096);

	/* v1: the feature words are not read */
	superblock(b, E4_JBD2_INCOMPAT_64BIT);
	put32(b + 4, E4_JBD2_SUPERBLOCK_V1);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_OK);
	ck_assert_uint_eq(sb.version, 1);
	ck_assert_uint_eq(sb.incompat, 0);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 8);

	/* fast commit: the last 256 blocks by default, or s_num_fc_blks */
	sb = parsed(E4_JBD2_INCOMPAT_FAST_COMMIT);
	ck_assert_uint_eq(sb.log_end, 4096 - 256);
	superblock(b, E4_JBD2_INCOMPAT_FAST_COMMIT);
	put32(b + 0x54, 100);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_OK);
	ck_assert_uint_eq(sb.log_end, 3996);

	/* s_start inside the log */
	superblock(b, 0);
	put32(b + 0x1c, 4095);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_OK);
	ck_assert_uint_eq(sb.start, 4095);
}
END_TEST

START_TEST(jbd2_superblock_bad)
{
	uint8_t b[BS];
	struct e4_jbd2_sb sb;
	const char *why = NULL;

	superblock(b, 0);
	b[0] ^= 1;
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, 0);
	put32(b + 4, E4_JBD2_DESCRIPTOR);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, 0);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, 4096, &sb, &why), E4_CORRUPT);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS - 1, BS, &sb, &why), E4_CORRUPT);
	superblock(b, 0);
	put32(b + 0x14, 4096);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, 0);
	put32(b + 0x14, 0);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, E4_JBD2_INCOMPAT_FAST_COMMIT);
	put32(b + 0x1c, 4000);       /* in the fast-commit area */
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, E4_JBD2_INCOMPAT_FAST_COMMIT);
	put32(b + 0x54, 4095);       /* leaves no log */
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_CORRUPT);
	superblock(b, 0x40);
	ck_assert_int_eq(e4_jbd2_sb_parse(b, BS, BS, &sb, &why), E4_UNRECOGNIZED);
	ck_assert_ptr_nonnull(why);
}
END_TEST

START_TEST(jbd2_tag_size)
{
	struct e4_jbd2_sb sb;

	sb = parsed(0);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 8);
	sb = parsed(E4_JBD2_INCOMPAT_64BIT);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 12);
	sb = parsed(E4_JBD2_INCOMPAT_CSUM_V2);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 10);
	sb = parsed(E4_JBD2_INCOMPAT_CSUM_V2 | E4_JBD2_INCOMPAT_64BIT);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 14);
	sb = parsed(E4_JBD2_INCOMPAT_CSUM_V3);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 16);
	sb = parsed(E4_JBD2_INCOMPAT_CSUM_V3 | E4_JBD2_INCOMPAT_64BIT);
	ck_assert_uint_eq(e4_jbd2_tag_size(&sb), 16);
}
END_TEST

struct seen {
	struct e4_jbd2_tag t[64];
	unsigned int n;
	uint64_t revoked[300];
	unsigned int nrev;
};

static int see_tag(void *arg, unsigned int i, const struct e4_jbd2_tag *t)
{
	struct seen *s = arg;

	ck_assert_uint_eq(i, s->n);
	s->t[s->n++] = *t;
	return 0;
}

static int see_revoke(void *arg, uint64_t b)
{
	struct seen *s = arg;

	s->revoked[s->nrev++] = b;
	return 0;
}

START_TEST(jbd2_tags_v3_64bit)
{
	struct e4_jbd2_sb sb = parsed(E4_JBD2_INCOMPAT_CSUM_V3 | E4_JBD2_INCOMPAT_64BIT);
	uint8_t b[BS], *p = b + 12;
	struct seen s = { .n = 0 };
	unsigned int n;
	const char *why = NULL;

	header(b, E4_JBD2_DESCRIPTOR, 5);
	/* tag 1, then its UUID */
	put32(p, 1000), put32(p + 4, 0), put32(p + 8, 0), put32(p + 12, 0xdeadbeef);
	p += 16 + 16;
	/* tag 2: an escaped copy, same UUID */
	put32(p, 1001), put32(p + 4, E4_JBD2_FLAG_SAME_UUID | E4_JBD2_FLAG_ESCAPE);
	p += 16;
	/* tag 3: the last, above 2^32 */
	put32(p, 7), put32(p + 4, E4_JBD2_FLAG_SAME_UUID | E4_JBD2_FLAG_LAST_TAG);
	put32(p + 8, 1), put32(p + 12, 0x01020304);
	ck_assert_int_eq(e4_jbd2_tags(&sb, b, see_tag, &s, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.t[0].fs_block, 1000);
	ck_assert_uint_eq(s.t[0].checksum, 0xdeadbeef);
	ck_assert_uint_eq(s.t[1].fs_block, 1001);
	ck_assert_uint_eq(s.t[1].flags, E4_JBD2_FLAG_SAME_UUID | E4_JBD2_FLAG_ESCAPE);
	ck_assert_uint_eq(s.t[2].fs_block, ((uint64_t)1 << 32) | 7);
	ck_assert_uint_eq(s.t[2].checksum, 0x01020304);
}
END_TEST

START_TEST(jbd2_tags_old)
{
	struct e4_jbd2_sb sb = parsed(0);
	uint8_t b[BS], *p = b + 12;
	struct seen s = { .n = 0 };
	unsigned int n;
	const char *why = NULL;

	header(b, E4_JBD2_DESCRIPTOR, 9);
	/* 8-byte tags: blocknr, 16-bit checksum (unused), 16-bit flags */
	put32(p, 42), put16(p + 4, 0xffff), put16(p + 6, 0);
	p += 8 + 16;
	put32(p, 43), put16(p + 6, E4_JBD2_FLAG_SAME_UUID | E4_JBD2_FLAG_LAST_TAG);
	/* a high word that 32-bit journals do not have */
	put32(p + 8, 0x99);
	ck_assert_int_eq(e4_jbd2_tags(&sb, b, see_tag, &s, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s.t[0].fs_block, 42);
	ck_assert_uint_eq(s.t[0].checksum, 0);
	ck_assert_uint_eq(s.t[1].fs_block, 43);
}
END_TEST

START_TEST(jbd2_tags_bounds)
{
	struct e4_jbd2_sb sb = parsed(E4_JBD2_INCOMPAT_CSUM_V3);
	uint8_t b[BS];
	struct seen s = { .n = 0 };
	unsigned int n, want;
	const char *why = NULL;
	size_t off;

	/* no LAST_TAG, every tag with the same UUID: as many 16-byte tags as
	 * fit before the 4-byte tail, then the end */
	header(b, E4_JBD2_DESCRIPTOR, 1);
	for (off = 12; off + 16 <= BS; off += 16)
		put32(b + off + 4, E4_JBD2_FLAG_SAME_UUID);
	want = (BS - 4 - 12) / 16;
	ck_assert_int_eq(e4_jbd2_tags(&sb, b, see_tag, &s, &n, &why), E4_OK);
	ck_assert_uint_eq(n, want);

	/* the last tag that fits wants a UUID that does not */
	header(b, E4_JBD2_DESCRIPTOR, 1);
	for (off = 12; off + 16 <= BS - 4; off += 16)
		put32(b + off + 4, E4_JBD2_FLAG_SAME_UUID);
	put32(b + off - 16 + 4, 0);
	s.n = 0;
	ck_assert_int_eq(e4_jbd2_tags(&sb, b, see_tag, &s, &n, &why), E4_CORRUPT);
	ck_assert_ptr_nonnull(why);
	ck_assert_uint_eq(n, want - 1);
}
END_TEST

START_TEST(jbd2_revoke)
{
	struct e4_jbd2_sb sb = parsed(E4_JBD2_INCOMPAT_64BIT | E4_JBD2_INCOMPAT_CSUM_V3);
	uint8_t b[BS];
	struct seen s = { .nrev = 0 };
	unsigned int n;
	const char *why = NULL;

	header(b, E4_JBD2_REVOKE, 3);
	put32(b + 12, 16 + 2 * 8 + 4);  /* two records and a partial one */
	put32(b + 16, 0), put32(b + 20, 500);
	put32(b + 24, 2), put32(b + 28, 9);
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, see_revoke, &s, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s.revoked[0], 500);
	ck_assert_uint_eq(s.revoked[1], ((uint64_t)2 << 32) | 9);

	sb = parsed(0);
	put32(b + 12, 16 + 3 * 4);
	s.nrev = 0;
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, see_revoke, &s, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(s.revoked[1], 500);

	put32(b + 12, 15);
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, see_revoke, &s, &n, &why), E4_CORRUPT);
	put32(b + 12, BS + 4);
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, see_revoke, &s, &n, &why), E4_CORRUPT);
	/* with a checksum tail the last 4 bytes are not records */
	sb = parsed(E4_JBD2_INCOMPAT_CSUM_V2);
	put32(b + 12, BS);
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, see_revoke, &s, &n, &why), E4_CORRUPT);
	put32(b + 12, BS - 4);
	ck_assert_int_eq(e4_jbd2_revokes(&sb, b, NULL, NULL, &n, &why), E4_OK);
	ck_assert_uint_eq(n, (BS - 4 - 16) / 4);
}
END_TEST

START_TEST(jbd2_commit)
{
	uint8_t b[BS];
	struct e4_jbd2_commit c;
	uint32_t type, seq;

	header(b, E4_JBD2_COMMIT, 0x01020304);
	b[12] = 4, b[13] = 4;
	put32(b + 16, 0xcafef00d);
	put32(b + 0x30, 0), put32(b + 0x34, 1733356800);
	put32(b + 0x38, 123456789);
	ck_assert_int_eq(e4_jbd2_header(b, BS, &type, &seq), 1);
	ck_assert_uint_eq(type, E4_JBD2_COMMIT);
	ck_assert_uint_eq(seq, 0x01020304);
	e4_jbd2_commit_parse(b, &c);
	ck_assert_uint_eq(c.sec, 1733356800);
	ck_assert_uint_eq(c.nsec, 123456789);
	ck_assert_uint_eq(c.checksum_type, 4);
	ck_assert_uint_eq(c.checksum_size, 4);
	ck_assert_uint_eq(c.checksum, 0xcafef00d);
	b[3] ^= 1;
	ck_assert_int_eq(e4_jbd2_header(b, BS, &type, &seq), 0);
	ck_assert_int_eq(e4_jbd2_header(b, 11, &type, &seq), 0);
}
END_TEST

Suite *jbd2_suite(void)
{
	Suite *s = suite_create("jbd2");
	TCase *tc = tcase_create("blocks");

	tcase_add_test(tc, jbd2_superblock);
	tcase_add_test(tc, jbd2_superblock_bad);
	tcase_add_test(tc, jbd2_tag_size);
	tcase_add_test(tc, jbd2_tags_v3_64bit);
	tcase_add_test(tc, jbd2_tags_old);
	tcase_add_test(tc, jbd2_tags_bounds);
	tcase_add_test(tc, jbd2_revoke);
	tcase_add_test(tc, jbd2_commit);
	suite_add_tcase(s, tc);
	return s;
}

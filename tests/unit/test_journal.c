/* The jbd2 log walk (image/journal.c) on hand-made journals: 64bit and
 * csum v3 tags, an escaped copy, a revoke, a transaction wrapping at the
 * log's end, copies overwritten by a later transaction, a bad tag
 * checksum, a journal without checksums.  Layouts as in Linux 6.1
 * include/linux/jbd2.h; the checksums as fs/jbd2 computes them
 * (jbd2_chksum: crc32c, seeded with crc32c(~0, UUID); tags over the
 * escaped block, seeded further with the big-endian sequence; the
 * superblock from ~0 with s_checksum zeroed), with libext2fs's crc32c.
 * That the walk agrees with what Linux 6.1 writes is checked on
 * kernel-written images (tests/vm/undelete.sh: every copy "verified"). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2fs.h>
#include "journal.h"
#include "crc32c.h"

#define BS 1024
#define NB 64                   /* journal blocks */

static uint8_t jr[NB][BS];
static unsigned int reads[NB];  /* rd's calls per block */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static enum e4_status rd(void *arg, uint32_t jb, uint8_t *buf)
{
	(void)arg;
	if (jb >= NB)
		return E4_IO;
	reads[jb]++;
	memcpy(buf, jr[jb], BS);
	return E4_OK;
}

static uint32_t incompat;

static uint32_t seed(void)
{
	return ext2fs_crc32c_le(~0u, jr[0] + 0x30, 16);
}

static void header(uint32_t jb, uint32_t type, uint32_t seq)
{
	memset(jr[jb], 0, BS);
	put32(jr[jb], E4_JBD2_MAGIC);
	put32(jr[jb] + 4, type);
	put32(jr[jb] + 8, seq);
}

static void superblock(uint32_t features, uint32_t sequence)
{
	incompat = features;
	header(0, E4_JBD2_SUPERBLOCK_V2, 0);
	put32(jr[0] + 0x0c, BS);
	put32(jr[0] + 0x10, NB);
	put32(jr[0] + 0x14, 1);
	put32(jr[0] + 0x18, sequence);
	put32(jr[0] + 0x28, features);
	for (int i = 0; i < 16; i++)
		jr[0][0x30 + i] = (uint8_t)(0x11 * i + 3);
	jr[0][0x50] = 4;
	put32(jr[0] + 0xfc, 0);
	put32(jr[0] + 0xfc, ext2fs_crc32c_le(~0u, jr[0], 1024));
}

static int csum(void)
{
	return !!(incompat & (E4_JBD2_INCOMPAT_CSUM_V2 | E4_JBD2_INCOMPAT_CSUM_V3));
}

/* descriptor/revoke tail checksum */
static void tail(uint32_t jb)
{
	if (!csum())
		return;
	put32(jr[jb] + BS - 4, 0);
	put32(jr[jb] + BS - 4, ext2fs_crc32c_le(seed(), jr[jb], BS));
}

static void data(uint32_t jb, uint8_t fill)
{
	memset(jr[jb], fill, BS);
}

/* A descriptor at jb with n tags for fs blocks blk[], its data blocks
 * already in place (at the following blocks, wrapping at NB). */
static void descriptor(uint32_t jb, uint32_t seq, const uint64_t *blk,
		       const uint32_t *flags, int n)
{
	size_t off = 12;
	size_t tsz = e4_jbd2_tag_size(&(struct e4_jbd2_sb){ .incompat = incompat });
	uint32_t d = jb;

	header(jb, E4_JBD2_DESCRIPTOR, seq);
	for (int i = 0; i < n; i++) {
		uint8_t *t = jr[jb] + off;
		uint32_t fl = (flags ? flags[i] : 0) | (i ? E4_JBD2_FLAG_SAME_UUID : 0) |
			      (i == n - 1 ? E4_JBD2_FLAG_LAST_TAG : 0);
		uint8_t s[4];
		uint32_t c;

		d = d + 1 >= NB ? 1 : d + 1;
		put32(s, seq);
		c = ext2fs_crc32c_le(ext2fs_crc32c_le(seed(), s, 4), jr[d], BS);
		put32(t, (uint32_t)blk[i]);
		if (incompat & E4_JBD2_INCOMPAT_CSUM_V3) {
			put32(t + 4, fl);
			put32(t + 8, (uint32_t)(blk[i] >> 32));
			put32(t + 12, c);
		} else {
			t[4] = (uint8_t)(c >> 8), t[5] = (uint8_t)c;
			t[6] = (uint8_t)(fl >> 8), t[7] = (uint8_t)fl;
			if (incompat & E4_JBD2_INCOMPAT_64BIT)
				put32(t + 8, (uint32_t)(blk[i] >> 32));
		}
		off += tsz + (i ? 0 : 16);
	}
	tail(jb);
}

static void commit(uint32_t jb, uint32_t seq, uint32_t sec)
{
	header(jb, E4_JBD2_COMMIT, seq);
	jr[jb][12] = 4;
	jr[jb][13] = 4;
	put32(jr[jb] + 0x34, sec);
	if (csum())
		put32(jr[jb] + 16, ext2fs_crc32c_le(seed(), jr[jb], BS));
}

static void revoke(uint32_t jb, uint32_t seq, uint64_t blk)
{
	header(jb, E4_JBD2_REVOKE, seq);
	if (incompat & E4_JBD2_INCOMPAT_64BIT) {
		put32(jr[jb] + 12, 24);
		put32(jr[jb] + 16, (uint32_t)(blk >> 32));
		put32(jr[jb] + 20, (uint32_t)blk);
	} else {
		put32(jr[jb] + 12, 20);
		put32(jr[jb] + 16, (uint32_t)blk);
	}
	tail(jb);
}

static struct e4_journal *load(void);

/* Revoke records are kept one per (block, transaction), and a copy is
 * cancelled by a revoke of its block from its own transaction on, below
 * the limit (jbd2's replay: jbd2_journal_test_revoke). */
START_TEST(journal_revoke_rule)
{
	const uint64_t b1[] = { 100 };
	struct e4_journal *j;

	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_REVOKE, 10);
	data(2, 0xa1);
	descriptor(1, 10, b1, NULL, 1);
	commit(3, 10, 1700000000);
	/* transaction 11 revokes 100 three times (two blocks), and 7 */
	revoke(4, 11, 100);
	revoke(5, 11, 100);
	put32(jr[5] + 12, 28);
	put32(jr[5] + 20, 100);
	put32(jr[5] + 24, 7);
	commit(6, 11, 1700000010);
	/* transaction 12 revokes 100 again */
	revoke(7, 12, 100);
	commit(8, 12, 1700000020);
	j = load();
	ck_assert_uint_eq(e4_journal_ntrans(j), 3);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->revokes, 2);     /* 7, 100 */
	ck_assert_uint_eq(e4_journal_trans(j, 2)->revokes, 1);
	ck_assert_uint_eq(e4_journal_nrevokes(j), 3);
	ck_assert_uint_eq(e4_journal_revoke(j, 0)->fs_block, 7);
	ck_assert_uint_eq(e4_journal_revoke(j, 1)->fs_block, 100);
	ck_assert_uint_eq(e4_journal_revoke(j, 2)->trans, 2);
	/* the copy in transaction 0: revoked by 1 when 1 is below the limit */
	ck_assert_int_eq(e4_journal_revoked(j, 100, 0, 1), 0);
	ck_assert_int_eq(e4_journal_revoked(j, 100, 0, 2), 1);
	ck_assert_int_eq(e4_journal_revoked(j, 100, 2, 3), 1);
	ck_assert_int_eq(e4_journal_revoked(j, 100, 3, 10), 0);
	ck_assert_int_eq(e4_journal_revoked(j, 7, 0, 1), 0);
	ck_assert_int_eq(e4_journal_revoked(j, 8, 0, 10), 0);
	e4_journal_free(j);
}
END_TEST

static struct e4_journal *load(void)
{
	struct e4_journal *j = NULL;
	const char *why = NULL;

	ck_assert_int_eq(e4_journal_load(rd, NULL, NB, BS, 0, &j, &why), E4_OK);
	return j;
}

static const struct e4_jcopy *only_copy(struct e4_journal *j, uint64_t blk)
{
	size_t first;

	ck_assert_uint_eq(e4_journal_block_copies(j, blk, &first), 1);
	return e4_journal_block_copy(j, first);
}

START_TEST(journal_csum_v3_64bit)
{
	const uint64_t b1[] = { 100, 0x100000200ull };
	const uint32_t f1[] = { 0, E4_JBD2_FLAG_ESCAPE };
	const uint64_t b2[] = { 300 };
	uint8_t buf[BS];
	struct e4_journal *j;
	const struct e4_jtrans *t;
	const struct e4_jcopy *c;

	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_64BIT | E4_JBD2_INCOMPAT_CSUM_V3 |
		   E4_JBD2_INCOMPAT_REVOKE, 12);
	/* transaction 10: blocks 100 and 2^32 + 512, whose copy starts with
	 * the magic and is stored escaped (its first 4 bytes zeroed) */
	data(2, 0xa1);
	data(3, 0xb2);
	memset(jr[3], 0, 4);
	descriptor(1, 10, b1, f1, 2);
	commit(4, 10, 1700000000);
	/* transaction 11: revokes 100, then block 300 */
	revoke(5, 11, 100);
	data(7, 0xc3);
	descriptor(6, 11, b2, NULL, 1);
	commit(8, 11, 1700000010);
	j = load();
	ck_assert_int_eq(e4_journal_sb_csum(j), 1);
	ck_assert_uint_eq(e4_journal_ntrans(j), 2);
	t = e4_journal_trans(j, 0);
	ck_assert_uint_eq(t->sequence, 10);
	ck_assert_int_eq(t->committed, 1);
	ck_assert_int_eq(t->commit_csum, 1);
	ck_assert_uint_eq(t->commit_sec, 1700000000);
	ck_assert_uint_eq(t->ncopies, 2);
	ck_assert_int_eq(t->live, 0);   /* s_start 0: past the live log */
	ck_assert_uint_eq(e4_journal_trans(j, 1)->sequence, 11);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->revokes, 1);
	c = only_copy(j, 100);
	ck_assert_uint_eq(c->jblock, 2);
	ck_assert_int_eq(c->trust, E4_JCOPY_VERIFIED);
	c = only_copy(j, 0x100000200ull);
	ck_assert_uint_eq(c->jblock, 3);
	ck_assert_int_eq(c->escaped, 1);
	ck_assert_int_eq(e4_journal_read_copy(j, c, buf), E4_OK);
	ck_assert_uint_eq(buf[0], 0xc0);
	ck_assert_uint_eq(buf[3], 0x98);
	ck_assert_uint_eq(buf[4], 0xb2);
	c = only_copy(j, 300);
	ck_assert_uint_eq(c->jblock, 7);
	ck_assert_uint_eq(e4_journal_nrevokes(j), 1);
	ck_assert_uint_eq(e4_journal_revoke(j, 0)->fs_block, 100);
	ck_assert_uint_eq(e4_journal_revoke(j, 0)->trans, 1);
	e4_journal_free(j);

	/* a copy whose bytes changed no longer checks: dropped, counted */
	jr[7][100] ^= 1;
	j = load();
	ck_assert_uint_eq(e4_journal_trans(j, 1)->bad_tag_csum, 1);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->ncopies, 0);
	e4_journal_free(j);
	/* a bad superblock checksum is reported, not fatal */
	jr[0][0x40] ^= 1;
	j = load();
	ck_assert_int_eq(e4_journal_sb_csum(j), -1);
	e4_journal_free(j);
}
END_TEST

/* The walk reads a copy that follows its descriptor once: its tag
 * checksum is checked when the scan passes it, not by reading every copy
 * again (on a 1 GiB journal that second read was half the time of
 * e4dump journal; bench/README.md, "The journal at scale").  A copy met
 * before its descriptor (wrapping at the log's end) is read again. */
START_TEST(journal_copies_read_once)
{
	const uint64_t b1[] = { 100, 101, 102 };
	const uint64_t b2[] = { 200, 201 };
	struct e4_journal *j;

	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_64BIT | E4_JBD2_INCOMPAT_CSUM_V3, 13);
	/* transaction 11 wraps: descriptor at 62, data at 63 and 1, commit 2 */
	data(63, 0xd4);
	data(1, 0xe5);
	descriptor(62, 11, b2, NULL, 2);
	commit(2, 11, 1700000000);
	/* transaction 12: descriptor at 3, data 4..6, commit 7 */
	data(4, 0xa1);
	data(5, 0xb2);
	data(6, 0xc3);
	descriptor(3, 12, b1, NULL, 3);
	commit(7, 12, 1700000010);
	memset(reads, 0, sizeof(reads));
	j = load();
	ck_assert_uint_eq(e4_journal_ntrans(j), 2);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->ncopies, 3);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->bad_tag_csum, 0);
	ck_assert_int_eq(only_copy(j, 101)->trust, E4_JCOPY_VERIFIED);
	for (uint32_t jb = 4; jb <= 6; jb++)
		ck_assert_uint_eq(reads[jb], 1);
	ck_assert_uint_eq(reads[63], 1);
	ck_assert_uint_eq(e4_journal_trans(j, 0)->ncopies, 2);
	ck_assert_int_eq(only_copy(j, 200)->trust, E4_JCOPY_VERIFIED);
	ck_assert_int_eq(only_copy(j, 201)->trust, E4_JCOPY_VERIFIED);
	ck_assert_uint_eq(only_copy(j, 201)->jblock, 1);
	e4_journal_free(j);

	/* csum v2 (16-bit tag checksums) the same way; a changed copy is
	 * caught by the check during the scan */
	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_CSUM_V2, 12);
	data(2, 0xa1);
	data(3, 0xb2);
	data(4, 0xc3);
	descriptor(1, 10, b1, NULL, 3);
	commit(5, 10, 1700000000);
	jr[3][7] ^= 1;
	memset(reads, 0, sizeof(reads));
	j = load();
	ck_assert_uint_eq(e4_journal_trans(j, 0)->ncopies, 2);
	ck_assert_uint_eq(e4_journal_trans(j, 0)->bad_tag_csum, 1);
	for (uint32_t jb = 2; jb <= 4; jb++)
		ck_assert_uint_eq(reads[jb], 1);
	e4_journal_free(j);
}
END_TEST

START_TEST(journal_wrap_and_overwrite)
{
	const uint64_t b20[] = { 500, 501, 502 };
	const uint64_t a[] = { 700, 701, 702 };
	const uint64_t b[] = { 800 };
	struct e4_journal *j;
	const struct e4_jtrans *t;

	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_CSUM_V3, 40);
	/* transaction 30 (older lap): descriptor at 20, data 21..23, commit
	 * 24; then transaction 31 wrote its descriptor at 21, data at 22 and
	 * its commit at 23: all three copies of 30 are gone */
	data(21, 1);
	data(22, 2);
	data(23, 3);
	descriptor(20, 30, a, NULL, 3);
	commit(24, 30, 1);
	data(22, 9);
	descriptor(21, 31, b, NULL, 1);
	commit(23, 31, 2);
	/* transaction 35 wraps: descriptor at 61, data 62, 63 and 1 */
	data(62, 5);
	data(63, 6);
	data(1, 7);
	descriptor(61, 35, b20, NULL, 3);
	commit(2, 35, 3);
	j = load();
	ck_assert_uint_eq(e4_journal_ntrans(j), 3);
	t = e4_journal_trans(j, 0);
	ck_assert_uint_eq(t->sequence, 30);
	ck_assert_uint_eq(t->ncopies, 0);
	ck_assert_uint_eq(t->overwritten, 3);
	ck_assert_int_eq(t->committed, 1);
	ck_assert_uint_eq(only_copy(j, 800)->jblock, 22);
	t = e4_journal_trans(j, 2);
	ck_assert_uint_eq(t->sequence, 35);
	ck_assert_uint_eq(t->ncopies, 3);
	ck_assert_uint_eq(only_copy(j, 500)->jblock, 62);
	ck_assert_uint_eq(only_copy(j, 501)->jblock, 63);
	ck_assert_uint_eq(only_copy(j, 502)->jblock, 1);
	ck_assert_int_eq(only_copy(j, 502)->trust, E4_JCOPY_VERIFIED);
	e4_journal_free(j);
}
END_TEST

START_TEST(journal_no_checksums)
{
	const uint64_t b1[] = { 40, 41 };
	const uint64_t b2[] = { 42 };
	struct e4_journal *j;

	memset(jr, 0, sizeof(jr));
	superblock(E4_JBD2_INCOMPAT_REVOKE, 3);
	data(2, 1);
	data(3, 2);
	descriptor(1, 1, b1, NULL, 2);
	commit(4, 1, 10);
	data(6, 3);
	descriptor(5, 2, b2, NULL, 1);    /* no commit block */
	j = load();
	ck_assert_int_eq(e4_journal_sb_csum(j), 0);
	ck_assert_uint_eq(e4_journal_ntrans(j), 2);
	ck_assert_int_eq(only_copy(j, 40)->trust, E4_JCOPY_COMMITTED);
	ck_assert_int_eq(only_copy(j, 42)->trust, E4_JCOPY_UNCOMMITTED);
	ck_assert_int_eq(e4_journal_trans(j, 1)->committed, 0);
	e4_journal_free(j);
	/* sequences order by their distance from s_sequence: 0xffffffff is
	 * older than 1 when s_sequence is 3 */
	descriptor(1, 0xffffffffu, b1, NULL, 2);
	j = load();
	ck_assert_uint_eq(e4_journal_ntrans(j), 3);
	ck_assert_uint_eq(e4_journal_trans(j, 0)->sequence, 0xffffffffu);
	ck_assert_uint_eq(e4_journal_trans(j, 1)->sequence, 1);
	ck_assert_uint_eq(e4_journal_trans(j, 2)->sequence, 2);
	e4_journal_free(j);
}
END_TEST

START_TEST(journal_hostile)
{
	struct e4_journal *j = NULL;
	const char *why = NULL;

	memset(jr, 0, sizeof(jr));
	superblock(0, 1);
	/* s_maxlen beyond the journal inode */
	ck_assert_int_eq(e4_journal_load(rd, NULL, NB - 1, BS, 0, &j, &why), E4_CORRUPT);
	ck_assert_ptr_nonnull(why);
	/* every block a descriptor full of tags: bounded, no crash */
	for (uint32_t jb = 1; jb < NB; jb++) {
		header(jb, E4_JBD2_DESCRIPTOR, jb);
		for (size_t off = 12; off + 8 <= BS; off += 8)
			put32(jr[jb] + off + 4, E4_JBD2_FLAG_SAME_UUID);
	}
	j = load();
	ck_assert_uint_eq(e4_journal_ntrans(j), NB - 1);
	ck_assert_uint_eq(e4_journal_ncopies(j), 0);   /* all headers */
	e4_journal_free(j);
	/* fast commit on the filesystem, flag cleared by a clean unmount:
	 * the log ends before the area (256 blocks by default: too many for
	 * this journal, so 8 here) */
	superblock(0, 1);
	put32(jr[0] + 0x54, 8);
	ck_assert_int_eq(e4_journal_load(rd, NULL, NB, BS, 1, &j, &why), E4_OK);
	ck_assert_uint_eq(e4_journal_sb(j)->log_end, NB - 8);
	e4_journal_free(j);
}
END_TEST

/* The journal's crc32c (the SSE4.2 instruction where the CPU has it)
 * against libext2fs's, which the checksums above are made with: every
 * length 0..300 at every alignment 0..7, and whole blocks, seeded. */
START_TEST(crc32c_as_libext2fs)
{
	static uint8_t buf[4096 + 16];
	uint64_t st = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < sizeof(buf); i++) {
		st = st * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(st >> 56);
	}
	for (size_t al = 0; al < 8; al++)
		for (size_t n = 0; n <= 300; n++) {
			uint32_t seed = (uint32_t)(n * 2654435761u) ^ (uint32_t)al;

			ck_assert_uint_eq(e4_crc32c(seed, buf + al, n),
					  ext2fs_crc32c_le(seed, buf + al, n));
		}
	ck_assert_uint_eq(e4_crc32c(~0u, buf, 4096), ext2fs_crc32c_le(~0u, buf, 4096));
	ck_assert_uint_eq(e4_crc32c(0, buf + 3, 4096), ext2fs_crc32c_le(0, buf + 3, 4096));
}
END_TEST

Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("walk");

	tcase_add_test(tc, journal_csum_v3_64bit);
	tcase_add_test(tc, journal_revoke_rule);
	tcase_add_test(tc, journal_wrap_and_overwrite);
	tcase_add_test(tc, journal_copies_read_once);
	tcase_add_test(tc, crc32c_as_libext2fs);
	tcase_add_test(tc, journal_no_checksums);
	tcase_add_test(tc, journal_hostile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(journal_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

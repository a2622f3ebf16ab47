/* The memory capture reader (image/source/capture.c) on captures made
 * here, byte by byte, in the three forms: raw, LiME (32-byte headers as
 * LiME's doc/README.md specifies them) and ELF64 cores (PT_LOAD program
 * headers, PN_XNUM).  Expected ranges are what the crafted headers say,
 * worked out by hand; hostile headers (overlapping, backwards, past the
 * file or the address space, cut short, lying counts) are refused or
 * clipped with a note, and the rest of the capture still reads. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"

struct mem {
	uint8_t *data;
	size_t size;
};

static int mem_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct mem *m = arg;

	memcpy(buf, m->data + off, len);
	return 0;
}

static void mem_close(void *arg)
{
	free(((struct mem *)arg)->data);
	free(arg);
}

static const struct e4_source_ops mem_ops = { mem_read, mem_close };

/* A growing file: bytes appended, then handed to a source. */
struct file {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct file *f, const void *p, size_t len)
{
	if (f->n + len > f->cap) {
		f->cap = (f->n + len) * 2;
		f->b = realloc(f->b, f->cap);
		ck_assert_ptr_nonnull(f->b);
	}
	memcpy(f->b + f->n, p, len);
	f->n += len;
}

static void put_le(struct file *f, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];

	for (unsigned int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(f, b, bytes);
}

/* len bytes whose value tells where they are: byte i of a range tagged
 * t is (t * 31 + i) & 0xff. */
static void put_data(struct file *f, unsigned int tag, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t b = (uint8_t)(tag * 31 + i);

		put(f, &b, 1);
	}
}

static int is_data(const uint8_t *p, unsigned int tag, size_t from, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != (uint8_t)(tag * 31 + from + i))
			return 0;
	return 1;
}

static void lime_hdr(struct file *f, uint32_t version, uint64_t s, uint64_t e)
{
	put_le(f, 0x4C694D45u, 4);
	put_le(f, version, 4);
	put_le(f, s, 8);
	put_le(f, e, 8);
	put_le(f, 0, 8);
}

static struct e4_source *source(struct file *f)
{
	struct mem *m = malloc(sizeof(*m));
	struct e4_source *s;

	ck_assert_ptr_nonnull(m);
	m->data = f->b ? f->b : malloc(1);
	m->size = f->n;
	ck_assert_int_eq(e4_source_new(&mem_ops, m, f->n, "capture", 1, "raw", &s), E4_OK);
	f->b = NULL;
	f->n = f->cap = 0;
	return s;
}

/* The capture in f read, which must succeed; f is emptied. */
static struct e4_source *read_ok(struct file *f, struct e4_capture *c)
{
	struct e4_source *s = source(f);
	char why[256];

	ck_assert_int_eq(e4_capture_read(s, c, why, sizeof(why)), E4_OK);
	return s;
}

static void done(struct e4_source *s, struct e4_capture *c)
{
	e4_capture_free(c);
	e4_source_close(s);
}

static int noted(const struct e4_capture *c, const char *word)
{
	for (size_t i = 0; i < c->n_notes; i++)
		if (strstr(c->notes[i], word))
			return 1;
	return 0;
}

static void range_is(const struct e4_capture *c, size_t i, uint64_t phys,
		     uint64_t off, uint64_t len)
{
	ck_assert_uint_lt(i, c->n);
	ck_assert_uint_eq(c->r[i].phys, phys);
	ck_assert_uint_eq(c->r[i].file_off, off);
	ck_assert_uint_eq(c->r[i].len, len);
}

START_TEST(test_raw)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	uint8_t buf[32];

	put_data(&f, 1, 10000);
	s = read_ok(&f, &c);
	ck_assert_int_eq(c.format, E4_CAPTURE_RAW);
	ck_assert_uint_eq(c.n, 1);
	range_is(&c, 0, 0, 0, 10000);
	ck_assert_uint_eq(c.n_problems, 0);
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 5000, buf, 16), E4_OK);
	ck_assert(is_data(buf, 1, 5000, 16));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 9990, buf, 20), E4_NOT_FOUND);
	done(s, &c);
}
END_TEST

START_TEST(test_lime_ranges_and_holes)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	uint8_t buf[64];

	lime_hdr(&f, 1, 0x1000, 0x1fff);       /* 4096 bytes at file 32 */
	put_data(&f, 1, 4096);
	lime_hdr(&f, 1, 0x100000, 0x1007ff);   /* 2048 bytes at file 4160 */
	put_data(&f, 2, 2048);
	lime_hdr(&f, 1, 0x2000, 0x200f);       /* adjacent to the first */
	put_data(&f, 3, 16);
	s = read_ok(&f, &c);
	ck_assert_int_eq(c.format, E4_CAPTURE_LIME);
	ck_assert_uint_eq(c.n_headers, 3);
	ck_assert_uint_eq(c.n_problems, 0);
	ck_assert_uint_eq(c.n, 3);
	/* by physical address */
	range_is(&c, 0, 0x1000, 32, 4096);
	range_is(&c, 1, 0x2000, 32 + 4096 + 32 + 2048 + 32, 16);
	range_is(&c, 2, 0x100000, 32 + 4096 + 32, 2048);
	ck_assert_uint_eq(c.bytes, 4096 + 2048 + 16);
	/* a read across two adjacent ranges */
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x1ff8, buf, 16), E4_OK);
	ck_assert(is_data(buf, 1, 4088, 8));
	ck_assert(is_data(buf + 8, 3, 0, 8));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x1007f0, buf, 16), E4_OK);
	ck_assert(is_data(buf, 2, 2032, 16));
	/* holes: before, between, after */
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0xfff, buf, 1), E4_NOT_FOUND);
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x2008, buf, 16), E4_NOT_FOUND);
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x100800, buf, 1), E4_NOT_FOUND);
	ck_assert_ptr_null(e4_capture_find(&c, 0x3000));
	ck_assert_ptr_nonnull(e4_capture_find(&c, 0x100000));
	done(s, &c);
}
END_TEST

START_TEST(test_lime_cut_short_and_terabytes)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;

	lime_hdr(&f, 1, 0, 0xfff);
	put_data(&f, 1, 4096);
	lime_hdr(&f, 1, 0x10000, 0x10000 + (1ull << 40) - 1); /* 1 TiB claimed */
	put_data(&f, 2, 100);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 2);
	range_is(&c, 0, 0, 32, 4096);
	range_is(&c, 1, 0x10000, 32 + 4096 + 32, 100);
	ck_assert_uint_eq(c.n_problems, 1);
	ck_assert(noted(&c, "LiME header 1") && noted(&c, "clipped"));
	done(s, &c);

	/* the whole address space, s_addr 0 and e_addr 2^64 - 1 */
	lime_hdr(&f, 1, 0, UINT64_MAX);
	put_data(&f, 1, 64);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	range_is(&c, 0, 0, 32, 64);
	ck_assert(noted(&c, "clipped"));
	done(s, &c);

	/* a header cut short after a range */
	lime_hdr(&f, 1, 0, 0xf);
	put_data(&f, 1, 16);
	put_le(&f, 0x4C694D45u, 4);
	put_le(&f, 1, 4);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(noted(&c, "less than a header"));
	done(s, &c);
}
END_TEST

START_TEST(test_lime_backwards_version_garbage)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;

	lime_hdr(&f, 1, 0x1000, 0x10ff);
	put_data(&f, 1, 256);
	lime_hdr(&f, 1, 0x5000, 0x4fff);       /* runs backwards */
	put_data(&f, 2, 256);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	range_is(&c, 0, 0x1000, 32, 256);
	ck_assert(noted(&c, "backwards") && noted(&c, "LiME header 1"));
	done(s, &c);

	lime_hdr(&f, 1, 0x1000, 0x10ff);
	put_data(&f, 1, 256);
	lime_hdr(&f, 2, 0x2000, 0x20ff);
	put_data(&f, 2, 256);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(noted(&c, "version 2"));
	done(s, &c);

	lime_hdr(&f, 1, 0x1000, 0x10ff);
	put_data(&f, 1, 256);
	put_data(&f, 9, 100);                  /* no header where one belongs */
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(noted(&c, "no header at offset 288"));
	done(s, &c);
}
END_TEST

START_TEST(test_lime_overlaps)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	uint8_t buf[16];

	lime_hdr(&f, 1, 0x1000, 0x1fff);
	put_data(&f, 1, 4096);
	lime_hdr(&f, 1, 0x1800, 0x27ff);       /* its first half overlaps */
	put_data(&f, 2, 4096);
	lime_hdr(&f, 1, 0x1100, 0x11ff);       /* wholly inside the first */
	put_data(&f, 3, 256);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 2);
	range_is(&c, 0, 0x1000, 32, 4096);
	/* clipped to start after the first: 0x800 bytes later in the file */
	range_is(&c, 1, 0x2000, 32 + 4096 + 32 + 0x800, 0x800);
	ck_assert_uint_eq(c.n_problems, 2);
	ck_assert(noted(&c, "clipped") && noted(&c, "refused"));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x2000, buf, 16), E4_OK);
	ck_assert(is_data(buf, 2, 0x800, 16));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x1100, buf, 16), E4_OK);
	ck_assert(is_data(buf, 1, 0x100, 16));
	done(s, &c);
}
END_TEST

/* An ELF64 core: header, then phnum program headers, then data. */
struct seg {
	uint32_t type;
	uint64_t off, paddr, filesz;
};

static void elf(struct file *f, unsigned int cls, unsigned int type,
		uint16_t e_phnum, const struct seg *seg, size_t n, uint32_t xnum)
{
	uint8_t ident[16] = { 0x7f, 'E', 'L', 'F', (uint8_t)cls, 1, 1 };
	uint64_t shoff = xnum ? 64 + 56 * (uint64_t)n : 0;

	put(f, ident, 16);
	put_le(f, type, 2);     /* e_type */
	put_le(f, 62, 2);       /* e_machine: x86-64 */
	put_le(f, 1, 4);        /* e_version */
	put_le(f, 0, 8);        /* e_entry */
	put_le(f, 64, 8);       /* e_phoff */
	put_le(f, shoff, 8);    /* e_shoff */
	put_le(f, 0, 4);        /* e_flags */
	put_le(f, 64, 2);       /* e_ehsize */
	put_le(f, 56, 2);       /* e_phentsize */
	put_le(f, e_phnum, 2);  /* e_phnum */
	put_le(f, xnum ? 64 : 0, 2); /* e_shentsize */
	put_le(f, xnum ? 1 : 0, 2);  /* e_shnum */
	put_le(f, 0, 2);        /* e_shstrndx */
	for (size_t i = 0; i < n; i++) {
		put_le(f, seg[i].type, 4);
		put_le(f, 7, 4);
		put_le(f, seg[i].off, 8);
		put_le(f, 0xffff880000000000ull + seg[i].paddr, 8); /* p_vaddr */
		put_le(f, seg[i].paddr, 8);
		put_le(f, seg[i].filesz, 8);
		put_le(f, seg[i].filesz, 8);
		put_le(f, 0, 8);
	}
	if (xnum) {             /* section header 0: sh_info = the count */
		uint8_t sh[64] = { 0 };

		sh[44] = (uint8_t)xnum;
		sh[45] = (uint8_t)(xnum >> 8);
		put(f, sh, 64);
	}
}

START_TEST(test_elf_segments)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	uint8_t buf[16];
	/* data at 1024: A (tag 1, 4096), B (tag 2, 4096), C (tag 3, 512) */
	const struct seg seg[] = {
		{ 4, 0, 0, 0 },                 /* PT_NOTE: not memory */
		{ 1, 1024 + 4096, 0x200000, 4096 },  /* B, listed first */
		{ 1, 1024, 0x100000, 4096 },    /* A */
		{ 1, 1024 + 8192, 0x300000, 4096 }, /* C: the file holds 512 */
		{ 1, 1 << 30, 0x400000, 4096 }, /* past the end of the file */
		{ 1, 1024 + 2048, 0x500000, 2048 }, /* A's bytes again */
		{ 1, 1024, UINT64_MAX - 100, 4096 }, /* past 2^64 */
		{ 1, 1024, 0x600000, 0 },       /* empty */
	};

	elf(&f, 2, 4, 8, seg, 8, 0);
	while (f.n < 1024)
		put_le(&f, 0, 1);
	put_data(&f, 1, 4096);
	put_data(&f, 2, 4096);
	put_data(&f, 3, 512);
	s = read_ok(&f, &c);
	ck_assert_int_eq(c.format, E4_CAPTURE_ELF);
	ck_assert_uint_eq(c.n_headers, 8);
	ck_assert_uint_eq(c.n, 3);
	range_is(&c, 0, 0x100000, 1024, 4096);
	range_is(&c, 1, 0x200000, 1024 + 4096, 4096);
	range_is(&c, 2, 0x300000, 1024 + 8192, 512);
	ck_assert_uint_eq(c.r[0].header, 2);
	/* 3 clipped to the file, 4 past it, 5 inside A's file bytes, 6 past
	 * 2^64 */
	ck_assert_uint_eq(c.n_problems, 4);
	ck_assert(noted(&c, "program header 3") && noted(&c, "clipped"));
	ck_assert(noted(&c, "program header 4") && noted(&c, "past the end of the file"));
	ck_assert(noted(&c, "program header 5: its file bytes 0xc00..0x13ff lie inside those of program header 2: refused"));
	ck_assert(noted(&c, "program header 6") && noted(&c, "address space"));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x200ff8, buf, 8), E4_OK);
	ck_assert(is_data(buf, 2, 4088, 8));
	ck_assert_int_eq(e4_capture_read_phys(s, &c, 0x500000, buf, 8), E4_NOT_FOUND);
	done(s, &c);
}
END_TEST

START_TEST(test_elf_xnum_and_lying_count)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	const struct seg seg[] = {
		{ 1, 4096, 0, 256 },
		{ 1, 4096 + 256, 0x1000, 256 },
	};

	elf(&f, 2, 4, 0xffff, seg, 2, 2);
	while (f.n < 4096)
		put_le(&f, 0, 1);
	put_data(&f, 1, 512);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n_headers, 2);
	ck_assert_uint_eq(c.n, 2);
	range_is(&c, 1, 0x1000, 4096 + 256, 256);
	ck_assert_uint_eq(c.n_problems, 0);
	done(s, &c);

	/* 65534 program headers declared, two in the file (then data) */
	elf(&f, 2, 4, 0xfffe, seg, 2, 0);
	s = read_ok(&f, &c);
	ck_assert(noted(&c, "65534 program headers declared"));
	ck_assert_uint_eq(c.n_headers, 2);
	done(s, &c);
}
END_TEST

/* A kdump vmcore lists the kernel's text first, and again inside the
 * System RAM segment that holds it: the RAM is kept whole. */
START_TEST(test_elf_kernel_text_inside_ram)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	const struct seg seg[] = {
		{ 1, 4096, 0x1200, 256 },          /* kernel text */
		{ 1, 4096 + 256, 0x1000, 1024 },   /* System RAM */
	};

	elf(&f, 2, 4, 2, seg, 2, 0);
	while (f.n < 4096)
		put_le(&f, 0, 1);
	put_data(&f, 1, 256 + 1024);
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, 1);
	range_is(&c, 0, 0x1000, 4096 + 256, 1024);
	ck_assert_uint_eq(c.n_problems, 1);
	ck_assert(noted(&c, "program header 0: its memory bytes 0x1200..0x12ff lie inside those of program header 1: refused"));
	done(s, &c);
}
END_TEST

START_TEST(test_elf_refused_forms)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	char why[256];

	elf(&f, 1, 4, 0, NULL, 0, 0);          /* ELF32 */
	s = source(&f);
	ck_assert_int_eq(e4_capture_read(s, &c, why, sizeof(why)), E4_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(why, "64-bit"));
	e4_source_close(s);
	elf(&f, 2, 2, 0, NULL, 0, 0);          /* an executable */
	s = source(&f);
	ck_assert_int_eq(e4_capture_read(s, &c, why, sizeof(why)), E4_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(why, "not a core"));
	e4_source_close(s);
	put(&f, "\177ELF\2\1\1", 7);           /* header cut short */
	put_data(&f, 1, 20);
	s = source(&f);
	ck_assert_int_eq(e4_capture_read(s, &c, why, sizeof(why)), E4_CORRUPT);
	ck_assert_ptr_nonnull(strstr(why, "cut short"));
	e4_source_close(s);
	elf(&f, 2, 4, 0xffff, NULL, 0, 0);     /* PN_XNUM, no section header */
	s = source(&f);
	ck_assert_int_eq(e4_capture_read(s, &c, why, sizeof(why)), E4_CORRUPT);
	ck_assert_ptr_nonnull(strstr(why, "PN_XNUM"));
	e4_source_close(s);
}
END_TEST

/* Many headers in descending order (sorted once, not compared pairwise):
 * 200000 one-page ranges read in well under the test's timeout. */
START_TEST(test_lime_many_descending)
{
	struct file f = { 0 };
	struct e4_source *s;
	struct e4_capture c;
	const size_t n = 200000;

	for (size_t i = 0; i < n; i++) {
		uint64_t at = (uint64_t)(n - i) << 12;

		lime_hdr(&f, 1, at, at + 15);
		put_data(&f, (unsigned int)i, 16);
	}
	s = read_ok(&f, &c);
	ck_assert_uint_eq(c.n, n);
	ck_assert_uint_eq(c.n_problems, 0);
	ck_assert_uint_eq(c.r[0].phys, 1u << 12);
	ck_assert_uint_eq(c.r[0].header, n - 1);
	ck_assert_ptr_nonnull(e4_capture_find(&c, (uint64_t)77 << 12));
	ck_assert_ptr_null(e4_capture_find(&c, ((uint64_t)77 << 12) + 16));
	done(s, &c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capture");
	TCase *t = tcase_create("capture");
	SRunner *sr;
	int failed;

	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_raw);
	tcase_add_test(t, test_lime_ranges_and_holes);
	tcase_add_test(t, test_lime_cut_short_and_terabytes);
	tcase_add_test(t, test_lime_backwards_version_garbage);
	tcase_add_test(t, test_lime_overlaps);
	tcase_add_test(t, test_elf_segments);
	tcase_add_test(t, test_elf_xnum_and_lying_count);
	tcase_add_test(t, test_elf_kernel_text_inside_ram);
	tcase_add_test(t, test_elf_refused_forms);
	tcase_add_test(t, test_lime_many_descending);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

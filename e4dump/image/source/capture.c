/* Memory captures as ranges of physical memory (capture.h).  The layouts:
 * LiME, doc/README.md of 504ensicsLabs/LiME, "LiME Memory Range Header
 * Version 1 Specification": a packed header { u32 magic 0x4C694D45; u32
 * version 1; u64 s_addr; u64 e_addr; u8 reserved[8] } before each range,
 * e_addr inclusive (src/main.c: write_lime_header stores the resource's
 * end, write_range copies start..end), little-endian as the machine
 * wrote it.  ELF: the System V gABI's Elf64_Ehdr and Elf64_Phdr; with
 * e_phnum = PN_XNUM (0xffff) the count is section header 0's sh_info (as
 * QEMU's dump-guest-memory writes it for many segments). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "byteorder.h"

#define LIME_MAGIC 0x4C694D45u
#define LIME_HDR 32u
#define EHDR_SIZE 64u
#define PHDR_SIZE 56u
#define SHDR_SIZE 64u
#define PT_LOAD 1u
#define PN_XNUM 0xffffu
#define PHDR_CHUNK 64u

static void note(struct e4_capture *c, const char *fmt, ...)
{
	va_list ap;

	c->n_problems++;
	if (c->n_notes >= E4_CAPTURE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(c->notes[c->n_notes++], sizeof(c->notes[0]), fmt, ap);
	va_end(ap);
}

static void set_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* "LiME header 3" or "program header 3", for notes. */
static const char *hdr_word(const struct e4_capture *c)
{
	return c->format == E4_CAPTURE_LIME ? "LiME header" : "program header";
}

/* Add a range a header declares, refused or clipped against the file
 * and the address space.  E4_LIMIT when no more ranges may be kept. */
static enum e4_status add_range(struct e4_capture *c, size_t *cap, size_t hdr,
				uint64_t phys, uint64_t off, uint64_t len)
{
	struct e4_capture_range *r;

	if (!len)
		return E4_OK;
	if (off >= c->file_size) {
		note(c, "%s %zu: its %llu bytes at file offset %llu lie past the end of the file (%llu bytes): refused",
		     hdr_word(c), hdr, (unsigned long long)len, (unsigned long long)off,
		     (unsigned long long)c->file_size);
		return E4_OK;
	}
	if (len > c->file_size - off) {
		note(c, "%s %zu: claims %llu bytes at file offset %llu, the file holds %llu: clipped",
		     hdr_word(c), hdr, (unsigned long long)len, (unsigned long long)off,
		     (unsigned long long)(c->file_size - off));
		len = c->file_size - off;
	}
	if (len > UINT64_MAX - phys) {
		note(c, "%s %zu: physical address %#llx + %llu bytes runs past the end of the address space: refused",
		     hdr_word(c), hdr, (unsigned long long)phys, (unsigned long long)len);
		return E4_OK;
	}
	if (c->n >= E4_CAPTURE_MAX_RANGES) {
		note(c, "%s %zu: more than %u ranges; it and the headers after it are not read",
		     hdr_word(c), hdr, E4_CAPTURE_MAX_RANGES);
		return E4_LIMIT;
	}
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;

		r = realloc(c->r, ncap * sizeof(*r));
		if (!r)
			return E4_NOMEM;
		c->r = r;
		*cap = ncap;
	}
	c->r[c->n++] = (struct e4_capture_range){ phys, off, len, hdr };
	return E4_OK;
}

static int by_file(const void *a, const void *b)
{
	const struct e4_capture_range *x = a, *y = b;

	if (x->file_off != y->file_off)
		return x->file_off < y->file_off ? -1 : 1;
	return x->header < y->header ? -1 : x->header > y->header;
}

static int by_phys(const void *a, const void *b)
{
	const struct e4_capture_range *x = a, *y = b;

	if (x->phys != y->phys)
		return x->phys < y->phys ? -1 : 1;
	return x->header < y->header ? -1 : x->header > y->header;
}

/* Make the ranges disjoint along one axis (the file when file, else
 * physical memory), taken in order along it (sorted first unless they
 * already are): the bytes of a range that an earlier-starting one already
 * covers are dropped from it, at its front (clipped), or all of them
 * (refused): so a range listed again inside another (a kdump vmcore's
 * kernel text inside System RAM) is refused and the other kept whole. */
static void disjoint(struct e4_capture *c, int file)
{
	const char *axis = file ? "file" : "memory";
	uint64_t covered = 0;
	size_t i, k = 0, by = 0;

	for (i = 1; i < c->n; i++)
		if ((file ? by_file : by_phys)(&c->r[i - 1], &c->r[i]) > 0)
			break;
	if (i < c->n)
		qsort(c->r, c->n, sizeof(c->r[0]), file ? by_file : by_phys);
	for (i = 0; i < c->n; i++) {
		struct e4_capture_range r = c->r[i];
		uint64_t start = file ? r.file_off : r.phys, end = start + r.len;

		if (k && end <= covered) {
			note(c, "%s %zu: its %s bytes %#llx..%#llx lie inside those of %s %zu: refused",
			     hdr_word(c), r.header, axis, (unsigned long long)start,
			     (unsigned long long)(end - 1), hdr_word(c), by);
			continue;
		}
		if (k && start < covered) {
			uint64_t cut = covered - start;

			note(c, "%s %zu: its first %llu %s bytes (from %#llx) are also those of %s %zu: clipped",
			     hdr_word(c), r.header, (unsigned long long)cut, axis,
			     (unsigned long long)start, hdr_word(c), by);
			r.phys += cut;
			r.file_off += cut;
			r.len -= cut;
		}
		covered = end;
		by = r.header;
		c->r[k++] = r;
	}
	c->n = k;
}

static enum e4_status read_lime(struct e4_source *src, struct e4_capture *c,
				size_t *cap)
{
	uint64_t off = 0;
	uint8_t h[LIME_HDR];
	enum e4_status st;

	while (off < c->file_size) {
		uint64_t s_addr, e_addr, len, avail;
		size_t hdr = c->n_headers;

		if (c->file_size - off < LIME_HDR) {
			note(c, "LiME: the last %llu bytes (from offset %llu) are less than a header: not read",
			     (unsigned long long)(c->file_size - off), (unsigned long long)off);
			break;
		}
		st = e4_source_read(src, off, h, sizeof(h));
		if (st != E4_OK)
			return st;
		if (e4_le32(h) != LIME_MAGIC) {
			note(c, "LiME: no header at offset %llu where range %zu should start; the rest of the file (%llu bytes) is not read",
			     (unsigned long long)off, hdr, (unsigned long long)(c->file_size - off));
			break;
		}
		c->n_headers++;
		if (e4_le32(h + 4) != 1) {
			note(c, "LiME header %zu at offset %llu: version %u (only 1 is known); it and the rest of the file are not read",
			     hdr, (unsigned long long)off, (unsigned int)e4_le32(h + 4));
			break;
		}
		s_addr = e4_le64(h + 8);
		e_addr = e4_le64(h + 16);
		if (e_addr < s_addr) {
			note(c, "LiME header %zu at offset %llu: range %#llx..%#llx runs backwards; where the next header is is unknown, the rest of the file is not read",
			     hdr, (unsigned long long)off, (unsigned long long)s_addr,
			     (unsigned long long)e_addr);
			break;
		}
		off += LIME_HDR;
		avail = c->file_size - off;
		len = e_addr - s_addr + 1; /* 0: the whole 2^64 address space */
		if (len == 0 || len > avail) {
			/* add_range clips it to the file, and says so; nothing
			 * can follow a range the file ends inside */
			st = add_range(c, cap, hdr, s_addr, off, len ? len : UINT64_MAX - s_addr);
			return st == E4_LIMIT ? E4_OK : st;
		}
		st = add_range(c, cap, hdr, s_addr, off, len);
		if (st == E4_LIMIT)
			break;
		if (st != E4_OK)
			return st;
		off += len;
	}
	return E4_OK;
}

static enum e4_status read_elf(struct e4_source *src, struct e4_capture *c,
			       size_t *cap, char *why, size_t whylen)
{
	uint8_t e[EHDR_SIZE], buf[PHDR_CHUNK * PHDR_SIZE];
	uint64_t phoff, shoff, phnum, fits;
	unsigned int phentsize;
	enum e4_status st;

	if (c->file_size < EHDR_SIZE) {
		set_why(why, whylen, "ELF header cut short: the file has %llu bytes, the header 64",
			(unsigned long long)c->file_size);
		return E4_CORRUPT;
	}
	st = e4_source_read(src, 0, e, sizeof(e));
	if (st != E4_OK)
		return st;
	if (e[4] != 2 || e[5] != 1) {
		set_why(why, whylen, "ELF class %u, data encoding %u: only 64-bit little-endian cores are read",
			e[4], e[5]);
		return E4_UNSUPPORTED;
	}
	if (e4_le16(e + 16) != 4) {
		set_why(why, whylen, "ELF type %u is not a core (4)", e4_le16(e + 16));
		return E4_UNSUPPORTED;
	}
	phoff = e4_le64(e + 32);
	shoff = e4_le64(e + 40);
	phentsize = e4_le16(e + 54);
	phnum = e4_le16(e + 56);
	if (phentsize < PHDR_SIZE) {
		set_why(why, whylen, "ELF program header size %u, less than 56", phentsize);
		return E4_CORRUPT;
	}
	if (phnum == PN_XNUM) {
		uint8_t sh[SHDR_SIZE];

		if (!shoff || shoff > c->file_size || c->file_size - shoff < SHDR_SIZE) {
			set_why(why, whylen, "ELF e_phnum is PN_XNUM but section header 0 (at %llu) is not in the file",
				(unsigned long long)shoff);
			return E4_CORRUPT;
		}
		st = e4_source_read(src, shoff, sh, sizeof(sh));
		if (st != E4_OK)
			return st;
		phnum = e4_le32(sh + 44);
	}
	if (phnum && phoff >= c->file_size) {
		set_why(why, whylen, "ELF program headers at offset %llu, past the end of the file (%llu bytes)",
			(unsigned long long)phoff, (unsigned long long)c->file_size);
		return E4_CORRUPT;
	}
	fits = phnum ? (c->file_size - phoff) / phentsize : 0;
	if (phnum > fits) {
		note(c, "ELF: %llu program headers declared at offset %llu, the file holds %llu: the rest are not read",
		     (unsigned long long)phnum, (unsigned long long)phoff, (unsigned long long)fits);
		phnum = fits;
	}
	c->n_headers = (size_t)phnum;
	for (uint64_t i = 0; i < phnum;) {
		uint64_t k = phnum - i < PHDR_CHUNK ? phnum - i : PHDR_CHUNK;
		uint64_t at = phoff + i * phentsize;
		size_t span = (size_t)((k - 1) * phentsize + PHDR_SIZE);

		/* a chunk of headers at once unless they are spread out */
		if (span <= sizeof(buf)) {
			st = e4_source_read(src, at, buf, span);
		} else {
			k = 1;
			span = PHDR_SIZE;
			st = e4_source_read(src, at, buf, span);
		}
		if (st != E4_OK)
			return st;
		for (uint64_t j = 0; j < k; j++) {
			const uint8_t *p = buf + j * phentsize;

			if (e4_le32(p) != PT_LOAD)
				continue;
			st = add_range(c, cap, (size_t)(i + j), e4_le64(p + 24), e4_le64(p + 8),
				       e4_le64(p + 32));
			if (st == E4_LIMIT)
				return E4_OK;
			if (st != E4_OK)
				return st;
		}
		i += k;
	}
	return E4_OK;
}

enum e4_status e4_capture_read(struct e4_source *src, struct e4_capture *c,
			       char *why, size_t whylen)
{
	uint8_t magic[4] = { 0 };
	size_t cap = 0;
	enum e4_status st = E4_OK;

	memset(c, 0, sizeof(*c));
	set_why(why, whylen, "%s", "");
	c->file_size = src->size;
	if (c->file_size >= sizeof(magic)) {
		st = e4_source_read(src, 0, magic, sizeof(magic));
		if (st != E4_OK) {
			set_why(why, whylen, "the capture's first bytes cannot be read");
			return st;
		}
	}
	if (!memcmp(magic, "\177ELF", 4)) {
		c->format = E4_CAPTURE_ELF;
		c->kind = "ELF core";
		st = read_elf(src, c, &cap, why, whylen);
	} else if (e4_le32(magic) == LIME_MAGIC) {
		c->format = E4_CAPTURE_LIME;
		c->kind = "LiME";
		st = read_lime(src, c, &cap);
	} else {
		c->format = E4_CAPTURE_RAW;
		c->kind = "raw";
		st = add_range(c, &cap, 0, 0, 0, c->file_size);
	}
	if (st != E4_OK) {
		if (st == E4_NOMEM)
			set_why(why, whylen, "out of memory for the capture's ranges");
		else if (st == E4_IO)
			set_why(why, whylen, "the capture cannot be read");
		e4_capture_free(c);
		return st;
	}
	disjoint(c, 1);
	disjoint(c, 0);
	for (size_t i = 0; i < c->n; i++)
		c->bytes += c->r[i].len;
	return E4_OK;
}

void e4_capture_free(struct e4_capture *c)
{
	free(c->r);
	c->r = NULL;
	c->n = 0;
}

const struct e4_capture_range *e4_capture_find(const struct e4_capture *c,
					       uint64_t phys)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct e4_capture_range *r = &c->r[mid];

		if (phys < r->phys)
			hi = mid;
		else if (phys - r->phys >= r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

enum e4_status e4_capture_read_phys(struct e4_source *src,
				    const struct e4_capture *c, uint64_t phys,
				    void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len) {
		const struct e4_capture_range *r = e4_capture_find(c, phys);
		uint64_t in, n;
		enum e4_status st;

		if (!r)
			return E4_NOT_FOUND;
		in = phys - r->phys;
		n = r->len - in < len ? r->len - in : len;
		st = e4_source_read(src, r->file_off + in, out, (size_t)n);
		if (st != E4_OK)
			return st;
		out += n;
		len -= (size_t)n;
		phys += n;
	}
	return E4_OK;
}

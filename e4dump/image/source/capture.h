/* A memory capture (a RAM image of a running machine) as the ranges of
 * physical memory it holds: where each range's bytes are in the file.
 * Three forms: raw (the file is physical memory from address 0, as
 * QEMU's pmemsave or LiME's "raw"/"padded" write it), LiME (each range
 * after a 32-byte header, LiME's doc/README.md "LiME Memory Range Header
 * Version 1 Specification") and ELF64 cores (QEMU's dump-guest-memory,
 * kdump's vmcore: the PT_LOAD segments).  The headers are evidence:
 * every range is checked against the file and the others, and what does
 * not hold is refused or clipped with a note saying why: a range past
 * the end of the file or of the 64-bit address space is refused, one the
 * file ends inside is clipped to it, and where ranges overlap (in memory
 * or in the file) the one that starts first keeps the shared bytes. */
#ifndef E4_CAPTURE_H
#define E4_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "source.h"

enum e4_capture_format {
	E4_CAPTURE_RAW,
	E4_CAPTURE_LIME,
	E4_CAPTURE_ELF,
};

/* One range: len bytes of physical memory from phys, at file_off of the
 * file.  len > 0; phys + len and file_off + len do not overflow and
 * file_off + len <= the file's size. */
struct e4_capture_range {
	uint64_t phys;
	uint64_t file_off;
	uint64_t len;
	size_t header;   /* the header it comes from, from 0 (LiME headers
			  * in file order, ELF program headers) */
};

/* At most this many ranges are kept (real captures have a few hundred);
 * headers after them are not read, with a note. */
#define E4_CAPTURE_MAX_RANGES (1u << 20)
/* At most this many notes are kept; n_problems counts them all. */
#define E4_CAPTURE_MAX_NOTES 16

struct e4_capture {
	enum e4_capture_format format;
	const char *kind;        /* "raw", "LiME", "ELF core" (static) */
	uint64_t file_size;
	struct e4_capture_range *r; /* by physical address; no two overlap,
				   * in memory nor in the file */
	size_t n;
	uint64_t bytes;          /* sum of the ranges' lengths */
	size_t n_headers;        /* range headers the file declares (LiME
				  * headers walked, ELF program headers) */
	size_t n_problems;       /* ranges refused or clipped, headers that
				  * could not be read */
	size_t n_notes;
	char notes[E4_CAPTURE_MAX_NOTES][200]; /* the first problems, in
				  * words, each naming the header and the
				  * reason */
};

/* Read the range headers of the capture in src (left to the caller).
 * The form is told by the first bytes: "\x7fELF" an ELF core, LiME's
 * magic a LiME file, anything else raw.  Bad ranges are refused or
 * clipped (notes), and the capture is what remains; a file none of
 * whose ranges remain gives n = 0 and E4_OK.  Fails with why only when
 * the form itself is unusable: an ELF file that is not a 64-bit
 * little-endian core (E4_UNSUPPORTED), a header table that cannot be
 * read at all (E4_CORRUPT), E4_NOMEM, E4_IO.  Work is linear in the
 * number of headers when they come in ascending order (as LiME, QEMU and
 * kdump write them), n log n otherwise; memory is bounded by
 * E4_CAPTURE_MAX_RANGES. */
enum e4_status e4_capture_read(struct e4_source *src, struct e4_capture *c,
			       char *why, size_t whylen);
void e4_capture_free(struct e4_capture *c);

/* The range that holds physical address phys, or NULL. */
const struct e4_capture_range *e4_capture_find(const struct e4_capture *c,
					       uint64_t phys);

/* Read len bytes of physical memory at phys from src (the file c was
 * read from).  E4_NOT_FOUND when some of them are not in the capture
 * (before, between or after its ranges), E4_IO on a read error. */
enum e4_status e4_capture_read_phys(struct e4_source *src,
				    const struct e4_capture *c, uint64_t phys,
				    void *buf, size_t len);

#endif

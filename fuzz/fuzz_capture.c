/* Memory captures (image/source/capture.c): the input is the capture
 * file (raw, LiME or ELF core by its first bytes).  Its range headers are
 * read; what the reader keeps must hold what capture.h promises: ranges
 * inside the file, disjoint in the file and in memory, sorted by
 * physical address, their lengths summing to bytes, and no more notes
 * than problems.  Then every range's first and last bytes are read by
 * physical address and compared with the file, the byte before each
 * range must be found only when another range holds it, and a read past
 * the last range must fail. */
#include <stdlib.h>
#include <string.h>
#include "capture.h"
#include "capture_scan.h"
#include "fuzz_common.h"

struct blob {
	const uint8_t *data;
	size_t len;
};

static int blob_read(void *arg, uint64_t off, void *buf, size_t len)
{
	const struct blob *b = arg;

	if (off > b->len || len > b->len - off)
		abort(); /* e4_source_read bounds every read */
	memcpy(buf, b->data + off, len);
	return 0;
}

static void blob_close(void *arg)
{
	free(arg);
}

static const struct e4_source_ops blob_ops = { blob_read, blob_close };

struct scan_check {
	struct e4_source *s;
	const struct e4_capture *c;
	size_t hits;
};

/* Every candidate the scan hands over is at an 8-aligned address inside
 * a range, at the file offset that range gives, and the recogniser takes
 * the same bytes again when they are read back by physical address. */
static int on_hit(void *arg, const struct e4_memkey_hit *h)
{
	struct scan_check *k = arg;
	const struct e4_capture_range *r = e4_capture_find(k->c, h->phys);
	uint8_t w[E4_AESNI_XTS_CTX_SIZE];
	size_t n = 0;
	struct e4_mem_key key;
	struct e4_hmac_states st;

	if (!r || h->phys % 8 || h->file_off != r->file_off + (h->phys - r->phys))
		abort();
	while (n < sizeof(w) && e4_capture_read_phys(k->s, k->c, h->phys + n, w + n, 1) == E4_OK)
		n++;
	switch (h->kind) {
	case E4_MEMKEY_HKDF:
		if (!e4_hmac_states_match(w, n, &st) || memcmp(&st, &h->states, sizeof(st)))
			abort();
		break;
	case E4_MEMKEY_LOGON:
		if (!e4_logon_payload_match(w, n, &key))
			abort();
		break;
	case E4_MEMKEY_SECRET_V1:
		if (!e4_mk_secret_v1_match(w, n, &key))
			abort();
		break;
	case E4_MEMKEY_AES:
		if (!e4_aes_ctx_match(w, n, &key))
			abort();
		break;
	case E4_MEMKEY_AES_XTS:
		if (!e4_aesni_xts_match(w, n, &key))
			abort();
		break;
	case E4_MEMKEY_DESCRIPTION:
		if (!e4_key_description_match(w, n, &key))
			abort();
		break;
	}
	if (h->kind != E4_MEMKEY_HKDF &&
	    (key.len != h->key.len || memcmp(key.raw, h->key.raw, key.len) ||
	     key.named != h->key.named || (key.named && memcmp(key.descriptor, h->key.descriptor, 8))))
		abort();
	k->hits++;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

static void check_byte(struct e4_source *s, const struct e4_capture *c,
		       const struct blob *b, uint64_t phys, uint64_t file_off)
{
	uint8_t x;

	if (e4_capture_read_phys(s, c, phys, &x, 1) != E4_OK || x != b->data[file_off])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blob *b = malloc(sizeof(*b));
	struct e4_source *s;
	struct e4_capture c;
	char why[256];
	uint64_t sum = 0;
	uint8_t x[8];

	if (!b)
		return 0;
	b->data = data;
	b->len = size;
	if (e4_source_new(&blob_ops, b, size, "fuzz capture", 1, "raw", &s) != E4_OK)
		return 0;
	if (e4_capture_read(s, &c, why, sizeof(why)) != E4_OK) {
		if (!why[0] || strnlen(why, sizeof(why)) == sizeof(why))
			abort();
		e4_source_close(s);
		return 0;
	}
	if (c.n_notes > c.n_problems || c.n_notes > E4_CAPTURE_MAX_NOTES ||
	    c.n > E4_CAPTURE_MAX_RANGES)
		abort();
	for (size_t i = 0; i < c.n_notes; i++)
		if (!c.notes[i][0] || strnlen(c.notes[i], sizeof(c.notes[i])) == sizeof(c.notes[i]))
			abort();
	for (size_t i = 0; i < c.n; i++) {
		const struct e4_capture_range *r = &c.r[i];

		if (!r->len || r->file_off > size || r->len > size - r->file_off ||
		    r->len > UINT64_MAX - r->phys)
			abort();
		if (i && c.r[i - 1].phys + c.r[i - 1].len > r->phys)
			abort(); /* sorted and disjoint in memory */
		for (size_t j = 0; j < i && j < 64; j++) {
			const struct e4_capture_range *q = &c.r[i - 1 - j];

			if (q->file_off < r->file_off + r->len && r->file_off < q->file_off + q->len)
				abort(); /* disjoint in the file (nearby ranges) */
		}
		sum += r->len;
		check_byte(s, &c, b, r->phys, r->file_off);
		check_byte(s, &c, b, r->phys + r->len - 1, r->file_off + r->len - 1);
		if (r->phys && (e4_capture_find(&c, r->phys - 1) != NULL) !=
			       (i && c.r[i - 1].phys + c.r[i - 1].len == r->phys))
			abort();
	}
	if (sum != c.bytes || sum > size)
		abort();
	if (c.n) {
		const struct e4_capture_range *last = &c.r[c.n - 1];

		if (last->phys + last->len <= UINT64_MAX - sizeof(x) &&
		    e4_capture_read_phys(s, &c, last->phys + last->len, x, sizeof(x)) != E4_NOT_FOUND)
			abort();
	}
	{
		struct scan_check k = { s, &c, 0 };
		uint64_t scanned = 0;

		if (e4_capture_scan(s, &c, 1 + (unsigned int)(size & 1), on_hit, &k, &scanned) != E4_OK ||
		    scanned != c.bytes)
			abort();
	}
	e4_capture_free(&c);
	e4_source_close(s);
	return 0;
}

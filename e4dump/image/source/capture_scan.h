/* The scan of a memory capture for the kernel's key structures (spec
 * §17): every 8-byte-aligned physical address of every range is offered
 * to the recognisers of lib/memkeys.h (the kernel's allocations are at
 * least 8-aligned: ARCH_KMALLOC_MINALIGN, CRYPTO_MINALIGN), over windows
 * that run on across ranges adjacent in memory.  Each structural match is
 * handed to a callback as a candidate, never judged here: the policies of
 * an image confirm it (tool/memscan.c).  Reads go through the capture's
 * ranges in chunks, so memory is bounded by threads x
 * E4_SCAN_CHUNK whatever the capture's size; the work is split between
 * threads by bytes. */
#ifndef E4_CAPTURE_SCAN_H
#define E4_CAPTURE_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include "capture.h"
#include "e4status.h"
#include "memkeys.h"

/* Bytes read at once per thread: 1 MiB stays in the cache between the
 * read and the scan (on a 1.2 GiB capture 0.29 s against 0.57 s with
 * 4 MiB chunks, median of 5). */
#define E4_SCAN_CHUNK (1u << 20)
/* At most this many threads. */
#define E4_SCAN_MAX_THREADS 16

enum e4_memkey_kind {
	E4_MEMKEY_LOGON,     /* §17.1 user_key_payload of a fscrypt_key */
	E4_MEMKEY_SECRET_V1, /* §17.2 fscrypt_master_key_secret of a v1 key */
	E4_MEMKEY_HKDF,      /* §17.3 the two SHA-512 states of a v2 key */
	E4_MEMKEY_AES,       /* §17.5 crypto_aes_ctx */
	E4_MEMKEY_AES_XTS,   /* §17.5 aesni_xts_ctx: a 64-byte XTS key */
	E4_MEMKEY_DESCRIPTION, /* §17.1 a logon key's description (no key:
				* the descriptor it names, key.descriptor) */
};

/* "v1-logon", "v1-ioctl", "v2-hkdf", "aes-schedule", "aes-xts-schedule",
 * "key-description" */
const char *e4_memkey_kind_name(enum e4_memkey_kind k);

struct e4_memkey_hit {
	enum e4_memkey_kind kind;
	uint64_t phys;        /* where the structure starts in memory */
	uint64_t file_off;    /* and in the capture file */
	struct e4_mem_key key;       /* all kinds but E4_MEMKEY_HKDF */
	struct e4_hmac_states states; /* E4_MEMKEY_HKDF */
};

/* Called once per candidate, one call at a time (the scan serialises
 * them); the hit is wiped after it returns.  Non-zero stops the scan
 * (E4_STOPPED). */
typedef int (*e4_memkey_fn)(void *arg, const struct e4_memkey_hit *hit);

/* Scan every range of c (read from src, which must allow concurrent
 * reads when threads > 1) with threads threads (1 .. E4_SCAN_MAX_THREADS;
 * more are clamped).  *scanned (may be NULL) gets the bytes scanned.
 * E4_IO when a read fails (the scan stops), E4_NOMEM, E4_STOPPED. */
enum e4_status e4_capture_scan(struct e4_source *src,
			       const struct e4_capture *c, unsigned int threads,
			       e4_memkey_fn fn, void *arg, uint64_t *scanned);

#endif

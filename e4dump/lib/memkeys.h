/* Recognisers of the kernel's key structures in memory (spec §17), over
 * bytes only: the scanner of a memory capture hands them windows.  Here
 * the v2 form: the two SHA-512 states of an HMAC-SHA512 transform keyed
 * with a v2 master key's HKDF pseudorandom key (§17.3), and every
 * HKDF-Expand output computed from them alone (§17.4). */
#ifndef E4_MEMKEYS_H
#define E4_MEMKEYS_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

/* The context of the transform: two exported struct sha512_state. */
#define E4_HMAC_STATES_SIZE 416

/* The two chaining values: after the ipad block, after the opad block. */
struct e4_hmac_states {
	uint64_t ipad[8];
	uint64_t opad[8];
};

/* Whether the 416 bytes at p are laid out as §17.3 says: both counts
 * (128, 0), both buf fields equal, neither state SHA-512's initial value
 * nor that of the all-zero salt (constants of every key's extract).  A
 * match is a candidate only: its identifier confirms it.  On a match,
 * when st is not NULL, the two states are loaded into it. */
int e4_hmac_states_match(const uint8_t *p, struct e4_hmac_states *st);

/* HKDF-Expand of fs/crypto/hkdf.c from the states alone: the first
 * out_len bytes (at most 255 * 64) of T(1) || T(2) || ..., T(n) =
 * HMAC(prk, T(n-1) || "fscrypt\0" || context || info || n).  info_len at
 * most 64.  E4_INVALID otherwise. */
enum e4_status e4_hkdf_expand_states(const struct e4_hmac_states *st,
				     uint8_t context, const uint8_t *info,
				     size_t info_len, uint8_t *out,
				     size_t out_len);

/* The states hmac_setkey (crypto/hmac.c) stores for a key of at most 128
 * bytes (a 64-byte PRK); for tests and for key files that carry the
 * states of a known key. */
enum e4_status e4_hmac_states_of_key(struct e4_hmac_states *st,
				     const uint8_t *key, size_t key_len);

#endif

/* Hex text to bytes, shared by key files, vector files and tests. */
#ifndef E4_HEX_H
#define E4_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit (either case), or -1. */
int e4_hexval(int c);

/* Decode the len hex digits at s (an even number; no spaces) into out,
 * which holds cap bytes.  Returns the number of bytes, or -1 for an odd
 * length, a non-digit or more than cap bytes. */
long e4_hex_decode(const char *s, size_t len, uint8_t *out, size_t cap);

/* Lowercase hex of n bytes into out (2n + 1 bytes, NUL-terminated). */
void e4_hex_encode(const uint8_t *p, size_t n, char *out);

#endif

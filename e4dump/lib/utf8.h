/* UTF-8 sequence validation shared by name checks and name display. */
#ifndef E4_UTF8_H
#define E4_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the well-formed UTF-8 sequence at s (n bytes left), or
 * 0 when it is not one.  Any byte below 0x80 counts as a sequence of 1. */
size_t e4_utf8_seq_len(const uint8_t *s, size_t n);

#endif

/* Names and paths from an image, made safe to show on a terminal. */
#ifndef E4_ESCAPE_H
#define E4_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes e4_escape() may write for n input bytes, its NUL included. */
#define E4_ESCAPE_SIZE(n) (4 * (size_t)(n) + 1)

/* Escape a slash too (one name of a path, where '/' would mislead). */
#define E4_ESCAPE_SLASH 1

/* Render bytes from the image for humans into out (E4_ESCAPE_SIZE(len)
 * bytes): well-formed UTF-8 is kept, except what a terminal would act on;
 * every other byte becomes "\xHH" (lowercase hex).  Escaped are: C0
 * controls and DEL, the backslash itself, C1 controls (U+0080..U+009F),
 * the bidirectional controls U+061C, U+200E, U+200F, U+202A..U+202E and
 * U+2066..U+2069, the separators U+2028 and U+2029, any byte of an
 * ill-formed sequence (overlong, surrogate, above U+10FFFF, truncated),
 * and '/' with E4_ESCAPE_SLASH.  Returns the length written (no NUL). */
size_t e4_escape(const uint8_t *in, size_t len, char *out, int flags);

#endif

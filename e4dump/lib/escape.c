#include "escape.h"

/* The code point of the well-formed UTF-8 sequence at s (n bytes left) and
 * its length, or 0 (RFC 3629: no overlongs, surrogates or values above
 * U+10FFFF). */
static size_t decode(const uint8_t *s, size_t n, uint32_t *cp)
{
	size_t need;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2, c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3, c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return need;
}

/* Code points a terminal acts on instead of showing. */
static int unsafe(uint32_t c, int flags)
{
	return c < 0x20 || c == 0x7f || c == '\\' ||
	       (c == '/' && (flags & E4_ESCAPE_SLASH)) ||
	       (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e ||
	       c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

size_t e4_escape(const uint8_t *in, size_t len, char *out, int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, o = 0;

	while (i < len) {
		uint32_t c = 0;
		size_t k = decode(in + i, len - i, &c);

		if (k && !unsafe(c, flags)) {
			for (size_t j = 0; j < k; j++)
				out[o++] = (char)in[i + j];
			i += k;
			continue;
		}
		if (!k)
			k = 1;
		for (size_t j = 0; j < k; j++) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[in[i + j] >> 4];
			out[o++] = hex[in[i + j] & 15];
		}
		i += k;
	}
	out[o] = '\0';
	return o;
}

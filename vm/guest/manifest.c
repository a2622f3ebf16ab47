/* e4dump QEMU guest: the manifest, a growing text buffer (format: vm/README.md). */
#include "guest.h"

char *g_man;
size_t g_man_len;
static size_t g_man_cap;

void man_add(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = g_man_cap - g_man_len;

		va_start(ap, fmt);
		n = vsnprintf(g_man ? g_man + g_man_len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			fail("vsnprintf failed");
		if ((size_t)n < room) {
			g_man_len += n;
			return;
		}
		g_man_cap = g_man_cap ? g_man_cap * 2 : 65536;
		while (g_man_cap - g_man_len <= (size_t)n)
			g_man_cap *= 2;
		g_man = realloc(g_man, g_man_cap);
		if (!g_man)
			fail("out of memory (manifest)");
	}
}

void man_hex(const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		man_add("%02x", p[i]);
}

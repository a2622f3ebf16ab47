/* e4dump QEMU guest: the content generator (vm/README.md, "Content generator"). */
#include "guest.h"

/* ---- content generator ----------------------------------------------------
 * seed  = FNV-1a 64 of the path relative to /mnt (e.g. "pad4/sub/one.txt")
 * bytes = splitmix64(seed) outputs, each stored as 8 little-endian bytes,
 *         concatenated and truncated to the file size.
 * Byte i of a file is byte i of that stream (holes of sparse files are 0). */

uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned char *gen_content(uint64_t seed, size_t size)
{
	unsigned char *buf = xmalloc(size + 8);
	uint64_t st = seed;
	size_t i;
	int k;

	for (i = 0; i < size; i += 8) {
		uint64_t v = splitmix64(&st);

		for (k = 0; k < 8; k++)
			buf[i + k] = (unsigned char)(v >> (8 * k));
	}
	return buf;
}

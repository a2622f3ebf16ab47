/* e4dump QEMU guest: the words of a scenario line: hex, numbers, names, paths, tags. */
#include "guest.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* returns byte count, fails on bad hex */
size_t parse_hex(const char *s, unsigned char *out, size_t max, int lineno)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max || n == 0)
		fail("line %d: bad hex string '%s' (max %zu bytes)", lineno, s, max);
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			fail("line %d: bad hex string '%s'", lineno, s);
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return n / 2;
}

unsigned long parse_num(const char *s, unsigned long max, int lineno)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max)
		fail("line %d: bad number '%s'", lineno, s);
	return v;
}

/* tree directory names: one path component of [A-Za-z0-9._-], a leading '/'
 * is allowed and dropped */
const char *parse_dir(const char *s, int lineno)
{
	const char *p;

	if (*s == '/')
		s++;
	if (!*s || strlen(s) > 200 || !strcmp(s, ".") || !strcmp(s, ".."))
		fail("line %d: bad directory name", lineno);
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			fail("line %d: bad directory name '%s'", lineno, s);
	return s;
}

int is_hex32(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return i == 32;
}

/* TAG: 1..64 characters of [A-Za-z0-9._-] */
const char *parse_tag(const char *s, int lineno)
{
	const char *p;

	if (!*s || strlen(s) > 64)
		fail("line %d: bad tag '%s'", lineno, s);
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			fail("line %d: bad tag '%s'", lineno, s);
	return s;
}

/* relative path: components of [A-Za-z0-9._-] separated by single '/', no
 * "." or ".." component; a leading '/' is dropped */
const char *parse_relpath(const char *s, int lineno)
{
	const char *p, *c;

	if (*s == '/')
		s++;
	if (!*s || strlen(s) > 1000)
		fail("line %d: bad path '%s'", lineno, s);
	for (c = s;; c = p + 1) {
		for (p = c; *p && *p != '/'; p++)
			if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
				fail("line %d: bad path '%s'", lineno, s);
		if (p == c || (p - c == 1 && c[0] == '.') ||
		    (p - c == 2 && c[0] == '.' && c[1] == '.'))
			fail("line %d: bad path '%s'", lineno, s);
		if (!*p)
			break;
	}
	return s;
}

/* a manifest path written with %HH escapes for bytes outside [A-Za-z0-9._-/]
 * (e.g. "pad4/sparse%20file"); no empty, "." or ".." component, no NUL */
void parse_plainpath(const char *s, char *out, size_t n, int lineno)
{
	size_t o = 0;
	const char *c;

	if (*s == '/')
		s++;
	for (; *s; s++) {
		int ch = (unsigned char)*s;

		if (ch == '%') {
			int hi = hexval((unsigned char)s[1]), lo = hi < 0 ? -1 : hexval((unsigned char)s[2]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				fail("line %d: bad %%HH escape in '%s'", lineno, s);
			ch = hi << 4 | lo;
			s += 2;
		} else if (!isalnum(ch) && !strchr("._-/", ch)) {
			fail("line %d: write byte 0x%02x of a path as %%%02x", lineno, ch, ch);
		}
		if (o + 1 >= n)
			fail("line %d: path too long", lineno);
		out[o++] = (char)ch;
	}
	out[o] = '\0';
	for (c = out;; c = strchr(c, '/') + 1) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			fail("line %d: bad path '%s'", lineno, out);
		if (!c[len])
			break;
	}
}

#include <stdarg.h>
#include <stdio.h>
#include "report.h"

int report_verbose;

static void emit(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "e4dump: %s", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void report_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("error: ", fmt, ap);
	va_end(ap);
}

void report_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void report_info(const char *fmt, ...)
{
	va_list ap;

	if (!report_verbose)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need;

	if (s[0] < 0x80)
		return (s[0] >= 0x20 && s[0] != 0x7f && s[0] != '\\') ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

void escape_name(const unsigned char *name, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	while (i < len) {
		size_t k = utf8_len(name + i, len - i);

		if (k) {
			for (size_t j = 0; j < k; j++)
				*out++ = (char)name[i + j];
			i += k;
		} else {
			*out++ = '\\';
			*out++ = 'x';
			*out++ = hex[name[i] >> 4];
			*out++ = hex[name[i] & 15];
			i++;
		}
	}
	*out = '\0';
}

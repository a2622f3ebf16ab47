#include <stdarg.h>
#include <stdio.h>
#include "report.h"
#include "utf8.h"

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

void report_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("note: ", fmt, ap);
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

/* Printable UTF-8 is shown as is; control bytes and '\\' are escaped, and
 * '/' too when slash is set. */
static size_t utf8_len(const unsigned char *s, size_t n, int slash)
{
	if (s[0] < 0x20 || s[0] == 0x7f || s[0] == '\\' || (slash && s[0] == '/'))
		return 0;
	return e4_utf8_seq_len(s, n);
}

static void escape(const unsigned char *name, size_t len, char *out, int slash)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	while (i < len) {
		size_t k = utf8_len(name + i, len - i, slash);

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

void escape_name(const unsigned char *name, size_t len, char *out)
{
	escape(name, len, out, 0);
}

void escape_component(const unsigned char *name, size_t len, char *out)
{
	escape(name, len, out, 1);
}

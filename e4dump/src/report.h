/* Diagnostics: one line each on stderr, prefixed "e4dump: error: ". */
#ifndef E4DUMP_REPORT_H
#define E4DUMP_REPORT_H

#include <stddef.h>

extern int report_verbose;

void report_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Render name bytes for humans: printable UTF-8 as is, anything else
 * (control bytes, invalid UTF-8, backslash) as \xHH.  out needs 4*len+1. */
void escape_name(const unsigned char *name, size_t len, char *out);
/* The same for one name of a path: '/' as \x2f too (hostile images). */
void escape_component(const unsigned char *name, size_t len, char *out);

#endif

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include "report.h"

static const char *prefix(enum e4_diag_level level)
{
	switch (level) {
	case E4_DIAG_ERROR: return "error: ";
	case E4_DIAG_WARNING: return "warning: ";
	case E4_DIAG_NOTE: return "note: ";
	default: return "";
	}
}

/* extract's writer thread reports too: counts are atomic, and each line
 * is written under stderr's lock. */
static void count(struct report *r, enum e4_diag_level level)
{
	if (level == E4_DIAG_ERROR)
		atomic_fetch_add(&r->errors, 1);
	else if (level == E4_DIAG_WARNING)
		atomic_fetch_add(&r->warnings, 1);
}

void report_diag(void *arg, const struct e4_diag *d)
{
	struct report *r = arg;

	count(r, d->level);
	if (d->problem == E4_P_NO_KEY)
		atomic_fetch_add(&r->locked, 1);
	if (d->level == E4_DIAG_INFO && !r->verbose)
		return;
	flockfile(stderr);
	fprintf(stderr, "e4dump: %s", prefix(d->level));
	if (d->path && d->ino)
		fprintf(stderr, "%s (inode %u): ", d->path, d->ino);
	else if (d->path)
		fprintf(stderr, "%s: ", d->path);
	else if (d->ino)
		fprintf(stderr, "inode %u: ", d->ino);
	fprintf(stderr, "%s\n", d->message);
	funlockfile(stderr);
}

static void emit(struct report *r, enum e4_diag_level level, const char *fmt,
		 va_list ap)
{
	count(r, level);
	if (level == E4_DIAG_INFO && !r->verbose)
		return;
	flockfile(stderr);
	fprintf(stderr, "e4dump: %s", prefix(level));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

#define REPORT_FN(name, level)                                  \
	void name(struct report *r, const char *fmt, ...)       \
	{                                                       \
		va_list ap;                                     \
		va_start(ap, fmt);                              \
		emit(r, level, fmt, ap);                        \
		va_end(ap);                                     \
	}

REPORT_FN(report_error, E4_DIAG_ERROR)
REPORT_FN(report_warning, E4_DIAG_WARNING)
REPORT_FN(report_note, E4_DIAG_NOTE)
REPORT_FN(report_info, E4_DIAG_INFO)

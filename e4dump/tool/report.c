#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "jsonout.h"
#include "report.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

static const char *level_word(enum e4_diag_level level)
{
	switch (level) {
	case E4_DIAG_ERROR: return "error";
	case E4_DIAG_WARNING: return "warning";
	case E4_DIAG_NOTE: return "note";
	default: return "info";
	}
}

/* Problems by name, for programs (verify's check ids are its own). */
static const char *problem_word(enum e4_problem p)
{
	static const char *const words[] = {
		[E4_P_OTHER] = "other", [E4_P_DIR_BLOCK] = "dir_block",
		[E4_P_DIR_LOOP] = "dir_loop", [E4_P_DIR_RELINK] = "dir_relink",
		[E4_P_DEPTH] = "depth", [E4_P_NAME] = "name",
		[E4_P_DUP_NAME] = "dup_name", [E4_P_UNUSED_INODE] = "unused_inode",
		[E4_P_BLOCK_MAP] = "block_map", [E4_P_INODE] = "inode",
		[E4_P_INODE_SIZE] = "inode_size", [E4_P_CONTEXT] = "context",
		[E4_P_NO_KEY] = "no_key", [E4_P_SHORT] = "short_image",
	};

	return (size_t)p < sizeof(words) / sizeof(words[0]) && words[p] ? words[p] : "other";
}

/* The JSON record of a diagnostic. */
static void json_diag(enum e4_diag_level level, const char *path, uint32_t ino,
		      const char *code, const char *problem, const char *msg)
{
	json_object *o = json_record("diagnostic");

	json_object_object_add(o, "level", json_object_new_string(level_word(level)));
	json_object_object_add(o, "path", path ? json_object_new_string(path) : NULL);
	json_object_object_add(o, "inode", ino ? json_object_new_int64(ino) : NULL);
	json_object_object_add(o, "code", code ? json_object_new_string(code) : NULL);
	json_object_object_add(o, "problem", problem ? json_object_new_string(problem) : NULL);
	json_object_object_add(o, "reason", json_object_new_string(msg));
	json_emit(o);
}

static const char *prefix(enum e4_diag_level level)
{
	switch (level) {
	case E4_DIAG_ERROR: return "error: ";
	case E4_DIAG_WARNING: return "warning: ";
	case E4_DIAG_NOTE: return "note: ";
	default: return "";
	}
}

/* Write text to stderr so that it cannot drive the terminal, whoever
 * built it: a path or name a caller did not escape (from an image, an
 * export or a capture) is escaped here as e4_escape does.  Text already
 * escaped passes unchanged: its backslashes are copied and only the runs
 * between them are escaped (a backslash never falls inside a UTF-8
 * sequence). */
static void put_safe(const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\\");
		char *out;

		if (n) {
			out = malloc(E4_ESCAPE_SIZE(n));
			if (out) {
				fwrite(out, 1, e4_escape((const uint8_t *)p, n, out, 0), stderr);
				free(out);
			} else {
				fputs("?", stderr);
			}
			p += n;
		}
		if (*p == '\\') {
			fputc('\\', stderr);
			p++;
		}
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
	if (r->json && d->level != E4_DIAG_INFO)
		json_diag(d->level, d->path, d->ino,
			  d->status != E4_OK ? e4_status_str(d->status) : NULL,
			  problem_word(d->problem), d->message);
	if (d->level == E4_DIAG_INFO && !r->verbose)
		return;
	flockfile(stderr);
	fprintf(stderr, "e4dump: %s", prefix(d->level));
	if (d->path) {
		put_safe(d->path);
		if (d->ino)
			fprintf(stderr, " (inode %u)", d->ino);
		fputs(": ", stderr);
	} else if (d->ino) {
		fprintf(stderr, "inode %u: ", d->ino);
	}
	put_safe(d->message);
	fputc('\n', stderr);
	funlockfile(stderr);
}

static void emit(struct report *r, enum e4_diag_level level, const char *fmt,
		 va_list ap)
{
	count(r, level);
	if (r->json && level != E4_DIAG_INFO) {
		char *msg = NULL;
		va_list copy;

		va_copy(copy, ap);
		if (vasprintf(&msg, fmt, copy) >= 0) {
			json_diag(level, NULL, 0, NULL, NULL, msg);
			free(msg);
		}
		va_end(copy);
	}
	if (level == E4_DIAG_INFO && !r->verbose)
		return;
	{
		char *msg = NULL;

		if (vasprintf(&msg, fmt, ap) < 0)
			msg = NULL;
		flockfile(stderr);
		fprintf(stderr, "e4dump: %s", prefix(level));
		put_safe(msg ? msg : "out of memory");
		fputc('\n', stderr);
		funlockfile(stderr);
		free(msg);
	}
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

static void emit_at(struct report *r, enum e4_diag_level level, const char *path,
		    uint32_t ino, const char *fmt, va_list ap)
{
	struct e4_diag d = { 0 };
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	d.level = level;
	d.status = E4_OK;
	d.problem = E4_P_OTHER;
	d.ino = ino;
	d.path = path;
	d.message = msg ? msg : "out of memory";
	report_diag(r, &d);
	free(msg);
}

void report_error_at(struct report *r, const char *path, uint32_t ino,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_at(r, E4_DIAG_ERROR, path, ino, fmt, ap);
	va_end(ap);
}

void report_warning_at(struct report *r, const char *path, uint32_t ino,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_at(r, E4_DIAG_WARNING, path, ino, fmt, ap);
	va_end(ap);
}

json_object *json_summary(const char *command, const struct report *r, int rc)
{
	json_object *o = json_record("summary");

	json_object_object_add(o, "command", json_object_new_string(command));
	json_object_object_add(o, "tool", json_object_new_string("e4dump"));
	json_object_object_add(o, "version", json_object_new_string(E4DUMP_VERSION));
	json_object_object_add(o, "errors", json_object_new_uint64(r->errors));
	json_object_object_add(o, "warnings", json_object_new_uint64(r->warnings));
	json_object_object_add(o, "locked_policies", json_object_new_uint64(r->locked));
	json_object_object_add(o, "exit", json_object_new_int(rc));
	return o;
}

void json_tally(const char *command, const struct report *r, int rc, int json,
		const struct tally *t, size_t n, const char *tail)
{
	json_object *sum;

	fprintf(stderr, "e4dump: %s: ", command);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%" PRIu64 " %s%s", t[i].n, t[i].words,
			i + 1 == n ? "" : t[i].group_end ? "; " : ", ");
	fprintf(stderr, "%s\n", tail ? tail : "");
	if (!json)
		return;
	sum = json_summary(command, r, rc);
	for (size_t i = 0; i < n; i++)
		json_object_object_add(sum, t[i].key, json_object_new_uint64(t[i].n));
	json_emit(sum);
}

/* The tool's diagnostics: the library's callback, printed one line each
 * on stderr as "e4dump: LEVEL: PATH (inode N): message". */
#ifndef E4DUMP_REPORT_H
#define E4DUMP_REPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <json-c/json.h>
#include "fs.h"

struct report {
	int verbose;            /* print E4_DIAG_INFO too */
	atomic_size_t errors;   /* E4_DIAG_ERROR lines printed */
	atomic_size_t warnings;
	atomic_size_t locked;   /* policies no key opens (E4_P_NO_KEY) */
	int json;               /* --json: each line also as a JSON record
				 * ("diagnostic") on standard output */
};

/* e4_diag_fn for e4_fs_options (arg: struct report *). */
void report_diag(void *arg, const struct e4_diag *d);

/* The tool's own messages. */
void report_error(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_warning(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_note(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_info(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An error about one entry: "PATH (inode N): message", and in JSON with
 * path and inode as fields. */
void report_error_at(struct report *r, const char *path, uint32_t ino,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void report_warning_at(struct report *r, const char *path, uint32_t ino,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The summary record: command, version, errors, warnings, locked
 * policies, exit status; more fields may be added by the caller. */
json_object *json_summary(const char *command, const struct report *r, int rc);

/* One count of a command's accounting: its key in the summary, its words
 * on the line ("5 locked kept"), and whether a ';' (else a ',') follows
 * it there. */
struct tally {
	const char *key;
	const char *words;
	uint64_t n;
	int group_end;
};

/* The accounting of a command that writes a tree (extract, unlock-kept),
 * in one place: the line "e4dump: COMMAND: N words, N words; ..." (then
 * tail, when not NULL) on standard error, always; with --json (json
 * non-zero) the summary with exit rc and each count under its key. */
void json_tally(const char *command, const struct report *r, int rc, int json,
		const struct tally *t, size_t n, const char *tail);

#endif

/* Progress of a long command on standard error, only when that is a
 * terminal (and not --quiet): entries and bytes done, the rate, and an
 * ETA when the total is known; a line rewritten in place at most twice a
 * second, and a last line when done. */
#ifndef E4DUMP_PROGRESS_H
#define E4DUMP_PROGRESS_H

#include <stdint.h>
#include <time.h>

struct progress {
	int on;
	const char *what;        /* "extracting", "verifying" */
	uint64_t entries, bytes;
	uint64_t total;          /* entries expected, or 0 */
	struct timespec start, last;
	int shown;
};

/* on: the caller's decision (not --quiet); it is off anyway when standard
 * error is not a terminal. */
void progress_start(struct progress *p, int on, const char *what, uint64_t total);
/* Count entries and bytes done; redraw when half a second has passed. */
void progress_add(struct progress *p, uint64_t entries, uint64_t bytes);
/* The last line, with the time taken. */
void progress_end(struct progress *p);

#endif

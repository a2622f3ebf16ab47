#include <stdio.h>
#include <unistd.h>
#include "progress.h"

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_start(struct progress *p, int on, const char *what, uint64_t total)
{
	*p = (struct progress){ 0 };
	p->on = on && isatty(STDERR_FILENO);
	p->what = what;
	p->total = total;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

static void draw(struct progress *p, const struct timespec *now, int last)
{
	double t = since(&p->start, now), mib = (double)p->bytes / (1 << 20);
	double rate = t > 0 ? mib / t : 0;

	fprintf(stderr, "\re4dump: %s%s %llu", last ? "done " : "", p->what,
		(unsigned long long)p->entries);
	if (p->total && !last)
		fprintf(stderr, " of about %llu", (unsigned long long)p->total);
	fprintf(stderr, " entries, %.1f MiB, %.1f MiB/s", mib, rate);
	if (last) {
		fprintf(stderr, ", %.1f s\n", t);
	} else if (p->total && p->entries && p->entries < p->total) {
		double eta = t * (double)(p->total - p->entries) / (double)p->entries;

		fprintf(stderr, ", ETA %d:%02d  ", (int)eta / 60, (int)eta % 60);
	}
	fflush(stderr);
	p->shown = 1;
}

void progress_add(struct progress *p, uint64_t entries, uint64_t bytes)
{
	struct timespec now;

	p->entries += entries;
	p->bytes += bytes;
	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&p->last, &now) < 0.5)
		return;
	p->last = now;
	draw(p, &now, 0);
}

void progress_end(struct progress *p)
{
	struct timespec now;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	draw(p, &now, 1);
}

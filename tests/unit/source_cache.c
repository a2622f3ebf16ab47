/* The decoded-unit cache of the container sources (source.c,
 * e4_source_handles_cache: reads of less than two chunks or clusters
 * served from whole decoded units, larger reads straight through a
 * library handle) against the raw image: usage
 *     source_cache [-n] RAW IMAGE [DAMAGED]
 * opens IMAGE (an E01, a qcow2 of RAW) as e4dump does and reads it from
 * THREADS threads at once (more readers than library handles: handles
 * are waited for, and several readers wait for one unit's decoding),
 * each its own mix of random reads (1 byte to 300 KiB, across unit
 * boundaries, so cached or not), runs of 4 KiB reads in order and jumps
 * back into what was read before (hits, and units evicted since); then
 * once in order in 1 MiB reads.  Every read must give exactly RAW's
 * bytes, except that a read touching a damaged chunk must fail: DAMAGED
 * lists them as ewfverify names them, a line "FIRST LAST" of 512-byte
 * sectors each, and a read that fails is right only when it touches one.
 * The cache must have decoded units and served reads from them; with -n
 * IMAGE must have no cache (an uncompressed qcow2).  Exit 0 when all agree, 1 with the first
 * disagreements. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "container.h"

#define THREADS 4
#define READS 3000

static uint8_t *raw;
static uint64_t raw_size;
static struct e4_source *src;
static uint64_t (*bad)[2]; /* bytes [first, end) */
static size_t n_bad;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long wrong, failed_right, reads_done;

static int touches_bad(uint64_t off, size_t len)
{
	for (size_t i = 0; i < n_bad; i++)
		if (bad[i][0] < off + len && off < bad[i][1])
			return 1;
	return 0;
}

static void one(uint64_t off, size_t len, uint8_t *buf)
{
	enum e4_status st = e4_source_read(src, off, buf, len);
	int should_fail = touches_bad(off, len), bad_read;

	bad_read = st == E4_OK ? should_fail || memcmp(buf, raw + off, len) : !should_fail;
	pthread_mutex_lock(&out_lock);
	reads_done++;
	if (st != E4_OK)
		failed_right += !bad_read;
	if (bad_read && ++wrong <= 10)
		fprintf(stderr, "read of %zu bytes at %" PRIu64 ": %s\n", len, off,
			st != E4_OK ? "failed, and it touches no damaged chunk" :
			should_fail ? "succeeded, and it touches a damaged chunk" :
				      "bytes differ from the raw image's");
	pthread_mutex_unlock(&out_lock);
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *reader(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * ((uintptr_t)arg + 1), last = 0;
	uint8_t *buf = malloc(300 << 10);

	if (!buf)
		abort();
	for (int i = 0; i < READS; i++) {
		uint64_t r = next(&x), off;
		size_t len;

		switch (r % 4) {
		case 0: /* anywhere, any size */
			len = 1 + (size_t)(next(&x) % (300 << 10));
			off = next(&x) % raw_size;
			break;
		case 1: /* small, anywhere */
			len = 1 + (size_t)(next(&x) % 8192);
			off = next(&x) % raw_size;
			break;
		case 2: { /* a run of 4 KiB reads in order: read-ahead */
			uint64_t start = (next(&x) % raw_size) & ~(uint64_t)4095;

			for (int k = 0; k < 64 && start + 4096 <= raw_size; k++, start += 4096)
				one(start, 4096, buf);
			continue;
		}
		default: /* back near an earlier read */
			off = last + next(&x) % (1 << 20);
			off = off >= raw_size ? raw_size - 1 : off;
			len = 1 + (size_t)(next(&x) % 65536);
		}
		if (len > raw_size - off)
			len = (size_t)(raw_size - off);
		one(off, len, buf);
		last = off;
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	char why[600];
	FILE *f;
	uint8_t *buf;
	int no_cache = 0, rc;
	uint64_t hits = 0, fills = 0;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		no_cache = 1;
		argv++;
		argc--;
	}
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: source_cache [-n] RAW IMAGE [DAMAGED]\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) ||
	    (raw_size = (uint64_t)ftell(f)) == 0 || fseek(f, 0, SEEK_SET) ||
	    !(raw = malloc(raw_size)) || fread(raw, 1, raw_size, f) != raw_size) {
		fprintf(stderr, "source_cache: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	if (argc == 4) {
		unsigned long long a, b;

		if (!(f = fopen(argv[3], "r")))
			return 2;
		while (fscanf(f, "%llu %llu", &a, &b) == 2) {
			bad = realloc(bad, (n_bad + 1) * sizeof(*bad));
			if (!bad)
				return 2;
			bad[n_bad][0] = a * 512;
			bad[n_bad++][1] = (b + 1) * 512;
		}
		fclose(f);
		if (!n_bad) {
			fprintf(stderr, "source_cache: no damaged ranges in %s\n", argv[3]);
			return 2;
		}
	}
	if (e4_source_open_any(argv[2], &src, why, sizeof(why)) != E4_OK) {
		fprintf(stderr, "source_cache: %s: %s\n", argv[2], why);
		return 2;
	}
	if (!strcmp(src->kind, "raw") || src->size != raw_size) {
		fprintf(stderr, "source_cache: %s: a %s source of %" PRIu64 " bytes, not a container of the raw image's %" PRIu64 "\n",
			argv[2], src->kind, src->size, raw_size);
		return 2;
	}
	for (uintptr_t i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, reader, (void *)i))
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	/* then in order, 1 MiB at a time (past the cache) */
	if (!(buf = malloc(1 << 20)))
		return 2;
	for (uint64_t off = 0; off < raw_size; off += 1 << 20)
		one(off, raw_size - off < (1 << 20) ? (size_t)(raw_size - off) : 1 << 20, buf);
	free(buf);
	rc = e4_source_handles_cache_stats(src, &hits, &fills);
	e4_source_close(src);
	printf("%s (%s): %lu reads, %lu of them failed as they must (damaged chunks: %zu ranges), %lu wrong; cache: %s, %" PRIu64 " reads from decoded units, %" PRIu64 " units decoded\n",
	       argv[2], argc == 4 ? "damaged" : "whole", reads_done, failed_right, n_bad, wrong,
	       rc ? "none" : "yes", hits, fills);
	if (no_cache != (rc != 0)) {
		printf(no_cache ? "a cache, where none should be\n" : "no cache\n");
		return 1;
	}
	if (!no_cache && (!hits || !fills)) {
		printf("the cache decoded or served nothing\n");
		return 1;
	}
	if (n_bad && !failed_right) {
		printf("no read touched a damaged chunk: nothing checked of them\n");
		return 1;
	}
	free(raw);
	free(bad);
	return wrong ? 1 : 0;
}

/* Preloaded (LD_PRELOAD) into e4dump by tests/cli/evidence_e01_chunks.sh:
 * counts the reads from an EWF handle (libewf_handle_read_random) and the
 * look-ups in its list of checksum errors (libewf_handle_get_checksum_error),
 * then passes each call on to libewf: the next definition in the global
 * scope when e4dump is linked with libewf, else the one in libewf.so.2 as
 * e4dump loaded it (dlopen, local: image/source/dynlib.h, which takes a
 * preloaded definition first as the dynamic linker would).  At exit, appends
 * "reads N bytes B lookups M" (B: the bytes the reads asked for) to the
 * file named by E4_EWF_CALLS. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

typedef int (*get_error_fn)(void *, uint32_t, uint64_t *, uint64_t *, void **);
typedef ssize_t (*read_fn)(void *, void *, size_t, off_t, void **);

static unsigned long long reads, bytes, lookups;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name), *h;

	if (!f && (h = dlopen("libewf.so.2", RTLD_NOW | RTLD_NOLOAD)))
		f = dlsym(h, name);
	return f;
}

int libewf_handle_get_checksum_error(void *h, uint32_t i, uint64_t *first,
				     uint64_t *count, void **err)
{
	get_error_fn next = (get_error_fn)real("libewf_handle_get_checksum_error");

	__atomic_fetch_add(&lookups, 1, __ATOMIC_RELAXED);
	return next ? next(h, i, first, count, err) : -1;
}

ssize_t libewf_handle_read_random(void *h, void *buf, size_t len, off_t off,
				  void **err)
{
	read_fn next = (read_fn)real("libewf_handle_read_random");

	__atomic_fetch_add(&reads, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bytes, len, __ATOMIC_RELAXED);
	return next ? next(h, buf, len, off, err) : -1;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("E4_EWF_CALLS");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (f) {
		fprintf(f, "reads %llu bytes %llu lookups %llu\n", reads, bytes, lookups);
		fclose(f);
	}
}

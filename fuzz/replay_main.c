/* Replay driver: runs a harness's LLVMFuzzerTestOneInput over files and
 * directories of inputs without libFuzzer (tests/CMakeLists.txt runs it
 * over tests/fuzz-regress/<target>/ and the generated seeds).  NAME.xz
 * inputs are decompressed with xz -dc.  A missing directory is skipped.
 * Exit 0 when every input ran (the harness never returns otherwise: a bug
 * aborts, or a sanitizer stops it), 1 when the peak RSS passed
 * E4DUMP_REPLAY_MAX_RSS_MB (default 1024; libFuzzer's limit is 2048), 2 on
 * a usage or read error or when there was no input at all. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "fuzz_common.h"

static FILE *logf_;
static size_t n_inputs;
static long max_rss_mb = 1024;
static int rss_exceeded;

static int read_input(const char *path, uint8_t **data, size_t *size)
{
	size_t len = strlen(path), cap = 1 << 16, n = 0;
	int xz = len > 3 && !strcmp(path + len - 3, ".xz");
	uint8_t *buf = malloc(cap);
	FILE *f;

	if (!buf)
		return -1;
	if (xz) {
		char *cmd = malloc(len * 4 + 32), *p;

		if (!cmd) {
			free(buf);
			return -1;
		}
		/* single-quote the path for sh */
		p = cmd + sprintf(cmd, "xz -dc -- '");
		for (const char *s = path; *s; s++)
			p += *s == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *s);
		strcpy(p, "'");
		f = popen(cmd, "r");
		free(cmd);
	} else {
		f = fopen(path, "rb");
	}
	if (!f) {
		free(buf);
		return -1;
	}
	for (;;) {
		size_t r;

		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				xz ? pclose(f) : fclose(f);
				return -1;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	if (ferror(f) || (xz ? pclose(f) != 0 : fclose(f) != 0)) {
		free(buf);
		return -1;
	}
	*data = buf;
	*size = n;
	return 0;
}

static int run_file(const char *path)
{
	uint8_t *data;
	size_t size;

	if (read_input(path, &data, &size)) {
		fprintf(logf_, "replay: %s: cannot read\n", path);
		return -1;
	}
	fprintf(logf_, "replay: %s (%zu bytes)\n", path, size);
	fflush(logf_);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	n_inputs++;
	if (!rss_exceeded) {
		struct rusage ru;

		if (!getrusage(RUSAGE_SELF, &ru) && ru.ru_maxrss / 1024 > max_rss_mb) {
			fprintf(logf_, "replay: %s: peak RSS %ld MiB > %ld MiB\n",
				path, ru.ru_maxrss / 1024, max_rss_mb);
			rss_exceeded = 1;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (stat(path, &st)) {
		if (errno == ENOENT) {
			fprintf(logf_, "replay: %s: missing, skipped\n", path);
			return 0;
		}
		fprintf(logf_, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_name[0] == '.')
			continue; /* ".", "..", dot files such as .gitkeep */
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!rc && run_path(names[i]))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	const char *lim = getenv("E4DUMP_REPLAY_MAX_RSS_MB");

	logf_ = stderr; /* before the harness silences stderr */
	if (lim && atol(lim) > 0)
		max_rss_mb = atol(lim);
	if (argc < 2) {
		fprintf(logf_, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]))
			rc = 2;
	fprintf(logf_, "replay: %zu inputs\n", n_inputs);
	if (!n_inputs)
		rc = 2;
	else if (!rc && rss_exceeded)
		rc = 1;
	return rc;
}

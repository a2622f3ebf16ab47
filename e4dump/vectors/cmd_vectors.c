/* e4dump vectors: deterministic test vectors for every primitive, as JSON
 * Lines (format in testvectors/README.md), and --check to recompute a
 * vector file with this library. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "vectors_command.h"
#include "session.h"
#include "vectors.h"

static int check_file(const char *path, struct report *r)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, passed = 0, failed = 0;
	int lineno = 0;

	if (!f) {
		report_error(r, "%s: cannot open", path);
		return EXIT_FATAL;
	}
	while (getline(&line, &cap, f) > 0) {
		json_object *o;
		int r;

		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		o = json_tokener_parse(line);
		r = o ? vectors_check_one(o) : -1;
		if (r) {
			failed++;
			printf("FAIL %s:%d %s: %s\n", path, lineno,
			       o ? get_str(o, "type") : "?",
			       r < 0 ? "malformed or unknown type" : "differs");
		} else {
			passed++;
		}
		json_object_put(o);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? EXIT_SKIPPED : EXIT_DONE;
}

int cmd_vectors(const struct options *o, struct report *r)
{
	struct drbg d = { o->seed ? o->seed : "e4dump", 0 };

	if (o->check)
		return finish_stdout(check_file(o->n_args ? o->args[0] : "-", r), r);
	if (o->n_args) {
		report_error(r, "vectors: takes no argument without --check");
		return EXIT_FATAL;
	}
	vectors_generate(&d);
	vectors_generate_modes(&d);
	return finish_stdout(EXIT_DONE, r);
}

/* A set of names (byte strings): the output names made in one directory,
 * so that two entries never land on one name. */
#ifndef E4DUMP_NAMESET_H
#define E4DUMP_NAMESET_H

#include <stddef.h>

struct nameset {
	char **slots;
	size_t cap, n;
};

/* Add name (copied).  1 if new, 0 if already there, -1 out of memory. */
int nameset_add(struct nameset *s, const char *name);
void nameset_free(struct nameset *s);

#endif

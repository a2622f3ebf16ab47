/* Files extract wrote that have more links: where the first was written,
 * so the others become hard links.  Bounded: past the budget the rest are
 * written as copies (reported once). */
#ifndef E4DUMP_HARDLINKS_H
#define E4DUMP_HARDLINKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HARDLINKS_BUDGET ((size_t)64 << 20) /* bytes of paths kept */

struct hardlink {
	uint32_t ino;           /* 0: empty slot */
	dev_t dev;              /* the file written */
	ino_t out_ino;
	char *rel;              /* its output path from the root */
	char *unreadable;       /* file blocks it lacks (ranges_text), or NULL */
};

struct hardlinks {
	struct hardlink *slots;
	size_t cap, n, bytes;
	int full;               /* the budget was reached */
};

const struct hardlink *hardlinks_find(const struct hardlinks *h, uint32_t ino);
/* Remember ino at rel (copied), with the blocks it lacks (copied; NULL:
 * none).  0, or -1 when the budget or memory is exhausted (h->full set
 * the first time). */
int hardlinks_add(struct hardlinks *h, uint32_t ino, dev_t dev, ino_t out_ino,
		  const char *rel, const char *unreadable);
void hardlinks_free(struct hardlinks *h);

#endif

/* Memory for tables that grow with the image (the encrypted-inode index,
 * a directory listing, verify's sort arrays). */
#ifndef E4_BIGMEM_H
#define E4_BIGMEM_H

#include <stddef.h>

/* From this size on, a block is its own mapping, 2 MiB aligned and
 * advised for transparent huge pages: every fresh 4 KiB page costs a
 * fault (on the VMs examiners and CI use, a trap to the hypervisor), and
 * a 100,000-entry listing or index touches thousands of them. */
#define E4_BIGMEM_HUGE ((size_t)2 << 20)

/* Resize p (NULL: allocate) from old_size to new_size bytes, keeping the
 * first min(old_size, new_size) bytes, like realloc.  old_size must be
 * the size p was last given.  NULL when out of memory (p is kept). */
void *e4_big_realloc(void *p, size_t old_size, size_t new_size);

/* Free p of size bytes (NULL: nothing). */
void e4_big_free(void *p, size_t size);

#endif

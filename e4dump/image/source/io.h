/* A libext2fs io_manager that reads through an e4_source (read-only). */
#ifndef E4_IO_H
#define E4_IO_H

#include <ext2fs/ext2fs.h>
#include "source.h"

/* The manager's table (constant: no state of its own). */
io_manager e4_source_io_manager(void);

/* The name to pass to ext2fs_open2 with e4_source_io_manager for s
 * (it carries the pointer; no '?' in it).  buf: 64 bytes. */
void e4_source_io_name(const struct e4_source *s, char buf[64]);

#endif

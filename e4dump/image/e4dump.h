/* libe4dump, the umbrella header: the ext4 encryption format over bytes
 * (libe4core) and the read-only image layer on libext2fs (libe4dump).
 *
 *   #include <e4dump/e4dump.h>
 *   cc prog.c $(pkg-config --cflags --libs e4dump)
 *
 * Start with fs.h (open an image with keys), walk.h (visit the tree),
 * dir.h (one directory), file.h (read a file), inode.h (stat, symlinks). */
#ifndef E4_E4DUMP_H
#define E4_E4DUMP_H

#include "e4status.h"
#include "fscrypt_disk.h"
#include "context.h"
#include "modes.h"
#include "cipher.h"
#include "kdf.h"
#include "keyfile.h"
#include "keystore.h"
#include "keysetup.h"
#include "fname.h"
#include "nokey.h"
#include "symlink.h"
#include "escape.h"
#include "extent.h"
#include "dirblock.h"
#include "xattr.h"
#include "source.h"
#include "container.h"
#include "volume.h"
#include "fs.h"
#include "inode.h"
#include "blockmap.h"
#include "dir.h"
#include "walk.h"
#include "file.h"
#include "journal.h"
#include "undelete.h"

#endif

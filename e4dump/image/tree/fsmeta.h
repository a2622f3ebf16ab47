/* The files of the fscrypt tool's metadata directories, /.fscrypt/protectors
 * and /.fscrypt/policies, read through the core's directory and file
 * readers: names and bytes, bounded; what they mean is lib/fscrypt_tool.h's. */
#ifndef E4_FSMETA_H
#define E4_FSMETA_H

#include <stddef.h>
#include <stdint.h>
#include "fs.h"

#define E4_FSMETA_MAX_FILES 4096 /* per directory; more are reported */

struct e4_fsmeta_file {
	char *name;             /* the entry's name, NUL-terminated (an ext4
				 * name holds no NUL) */
	size_t name_len;
	uint8_t *data;
	size_t len;
	uint32_t ino;
	uint32_t uid;           /* the file's owner (fscrypt checks a login
				 * protector's against its uid) */
};

struct e4_fsmeta_dir {
	struct e4_fsmeta_file *files;
	size_t n;
	char path[32];          /* "/.fscrypt/protectors", for messages */
};

/* Read the regular files of /.fscrypt/SUB (SUB: "protectors" or
 * "policies"), each of at most max bytes, in name order.  E4_NOT_FOUND
 * when the directory is absent (nothing reported).  A file that is not
 * regular, larger than max, encrypted or unreadable is reported with its
 * path and left out. */
enum e4_status e4_fsmeta_read(struct e4_fs *fs, const char *sub, size_t max,
			      struct e4_fsmeta_dir *out);
void e4_fsmeta_free(struct e4_fsmeta_dir *d);

#endif

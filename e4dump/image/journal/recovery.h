/* Rebuilding a deleted file or symlink (deleted.h) from its inode copy:
 * the block map as it was, data blocks read where they still are, and the
 * checks that are the only evidence the bytes are the file's (spec
 * section 15.3). */
#ifndef E4_RECOVERY_H
#define E4_RECOVERY_H

#include <stddef.h>
#include <stdint.h>
#include "blockmap.h"
#include "deleted.h"
#include "file.h"
#include "journal.h"

/* A range of a recovered file's blocks that cannot be trusted, and why. */
struct e4_suspect {
	uint64_t lblk;
	uint64_t count;
	const char *why;                /* static text */
};

struct e4_recovery;

/* Rebuild regular file d (have_inode): its block map from the inode copy
 * and journal copies of its extent-tree blocks, its cipher from its
 * context.  locked: no decryption (ciphertext), for --keep-locked.
 * E4_NO_KEY when its policy is locked and not locked; E4_CORRUPT with
 * *why when no map can be built. */
enum e4_status e4_recovery_open(struct e4_fs *fs, const struct e4_journal *j,
				const struct e4_deleted *d, int locked,
				struct e4_recovery **out, const char **why);
/* Pass its bytes (decrypted; locked: the ciphertext of every block
 * whole, to the end of the last block) up to i_size in increasing
 * offsets (holes left out), reading data blocks from the live image; the
 * checks of each block are made on the way.  E4_NOMEM when a suspect
 * range could not be recorded (the file cannot be called exact). */
enum e4_status e4_recovery_stream(struct e4_recovery *r, e4_sink_fn sink,
				  void *arg);
/* After the stream: the suspect ranges (*v, sorted; valid until freed). */
size_t e4_recovery_suspects(const struct e4_recovery *r,
			    const struct e4_suspect **v);
uint64_t e4_recovery_size(const struct e4_recovery *r);
/* Its block map as rebuilt (*v: sorted by logical block, unwritten ones
 * marked; valid until freed): where its bytes are in the image. */
size_t e4_recovery_runs(const struct e4_recovery *r, const struct e4_run **v);
void e4_recovery_free(struct e4_recovery *r);

/* A deleted symlink's target (malloc'd, NUL-terminated), decrypted; with
 * locked and no key, what readlink shows without it (*nokey set).  Its
 * block is the newest journal copy from before the deletion, else the
 * live block.  E4_NO_KEY, or E4_CORRUPT with *why. */
enum e4_status e4_recovery_symlink(struct e4_fs *fs, const struct e4_journal *j,
				   const struct e4_deleted *d, int locked,
				   char **target, size_t *len, int *nokey,
				   const char **why);
/* Its stored bytes (malloc'd: an encrypted symlink's length header and
 * ciphertext, as e4_symlink_raw gives them), from the same copy, for
 * --keep-locked's sidecar.  E4_INVALID without a symlink's inode copy,
 * else as e4_symlink_raw. */
enum e4_status e4_recovery_symlink_raw(struct e4_fs *fs, const struct e4_journal *j,
				       const struct e4_deleted *d, uint8_t **blob,
				       size_t *size);

#endif

/* What the kernel's lstat and readlink give for an inode, and whether a
 * given key opens it: the facts every writer takes from here (record.c,
 * stat, the mount). */
#ifndef E4DUMP_LINKFACTS_H
#define E4DUMP_LINKFACTS_H

#include <stdint.h>
#include "inode.h"
#include "session.h"

/* What readlink gives for a symlink, escaped for humans (NULL for another
 * type), and the st_size a kernel's lstat gives in *size; both by the
 * symlink's own policy, whatever its directory's: the target decrypted
 * with a key that opens it, or the kernel's no-key form (and its length)
 * when none does; *state says which ("plain", "decrypted", "nokey"; NULL
 * for another type).  malloc'd, or NULL when it cannot be read (reported;
 * *size is then i_size).  inode_stat_size and inode_target are its two halves. */
char *inode_link(struct session *s, const struct e4_inode *in, const char *shown,
		 const char **state, uint64_t *size);

/* The st_size a kernel's lstat gives: for a symlink its target's length
 * (decrypted, or the no-key target's when its policy is locked). */
uint64_t inode_stat_size(struct session *s, const struct e4_inode *in,
			 const char *shown);

/* What readlink gives for a symlink, escaped for humans: the target
 * (decrypted with the key), or the kernel's no-key form when no key opens
 * it; *state says which ("plain", "decrypted", "nokey").  malloc'd, or
 * NULL when it cannot be read (reported). */
char *inode_target(struct session *s, const struct e4_inode *in,
		   const char *shown, const char **state);

/* Whether in is encrypted under a policy no given key opens (then its
 * target is not read: that would be an error, not a fact). */
int inode_locked(struct session *s, const struct e4_inode *in);

/* How a symlink's target is shown: "plain", "decrypted" or "nokey". */
const char *inode_target_state(struct session *s, const struct e4_inode *in);

#endif

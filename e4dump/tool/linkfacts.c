/* What the kernel's lstat and readlink give for an inode (linkfacts.h). */
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "linkfacts.h"
#include "nokey.h"

int inode_locked(struct session *s, const struct e4_inode *in)
{
	struct e4_context c;
	struct e4_policy_key pk;
	const char *why;

	return in->encrypted && e4_inode_context(s->fs, in, &c, &why) == E4_OK &&
	       (e4_fs_policy_key(s->fs, &c, &pk) != E4_OK || !pk.open);
}

uint64_t inode_stat_size(struct session *s, const struct e4_inode *in,
			 const char *shown)
{
	uint64_t size = in->size;
	char *target;
	size_t len;

	if (!E4_ISLNK(in->mode))
		return size;
	if (inode_locked(s, in))
		e4_symlink_locked_size(s->fs, in, shown, &size);
	else if (e4_symlink_read(s->fs, in, shown, &target, &len) == E4_OK) {
		size = len;
		free(target);
	}
	return size;
}

const char *inode_target_state(struct session *s, const struct e4_inode *in)
{
	return inode_locked(s, in) ? "nokey" : in->encrypted ? "decrypted" : "plain";
}

char *inode_target(struct session *s, const struct e4_inode *in,
		   const char *shown, const char **state)
{
	char nk[E4_NOKEY_NAME_MAX + 1], *target = NULL, *esc;
	size_t len;

	*state = inode_target_state(s, in);
	if (!strcmp(*state, "nokey"))
		return e4_symlink_locked_target(s->fs, in, shown, nk) == E4_OK ?
		       strdup(nk) : NULL;
	if (e4_symlink_read(s->fs, in, shown, &target, &len) != E4_OK)
		return NULL;
	esc = malloc(E4_ESCAPE_SIZE(len));
	if (esc)
		e4_escape((const uint8_t *)target, len, esc, 0);
	free(target);
	return esc;
}

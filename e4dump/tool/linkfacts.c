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

char *inode_link(struct session *s, const struct e4_inode *in, const char *shown,
		 const char **state, uint64_t *size)
{
	char nk[E4_NOKEY_NAME_MAX + 1], *target = NULL, *esc;
	size_t len;

	*size = in->size;
	*state = NULL;
	if (!E4_ISLNK(in->mode))
		return NULL;
	*state = inode_target_state(s, in);
	/* fscrypt_symlink_getattr(): st_size is the length of what readlink
	 * gives, by the symlink's own key (not its directory's) */
	if (!strcmp(*state, "nokey")) {
		if (e4_symlink_locked_target(s->fs, in, shown, nk) != E4_OK)
			return NULL;
		*size = strlen(nk);
		return strdup(nk);
	}
	if (e4_symlink_read(s->fs, in, shown, &target, &len) != E4_OK)
		return NULL;
	*size = len;
	esc = malloc(E4_ESCAPE_SIZE(len));
	if (esc)
		e4_escape((const uint8_t *)target, len, esc, 0);
	free(target);
	return esc;
}

uint64_t inode_stat_size(struct session *s, const struct e4_inode *in,
			 const char *shown)
{
	const char *state;
	uint64_t size;

	free(inode_link(s, in, shown, &state, &size));
	return size;
}

const char *inode_target_state(struct session *s, const struct e4_inode *in)
{
	return inode_locked(s, in) ? "nokey" : in->encrypted ? "decrypted" : "plain";
}

char *inode_target(struct session *s, const struct e4_inode *in,
		   const char *shown, const char **state)
{
	uint64_t size;

	return inode_link(s, in, shown, state, &size);
}

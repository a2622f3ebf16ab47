/* e4dump QEMU guest: fscrypt ioctl wrappers and the v2 key identifiers added so far. */
#include "guest.h"

/* identifier of the most recent key2 (for tree2 without IDHEX) */
uint8_t g_last_id2[16];
int g_have_id2;
/* identifiers of the keys key2 added (forget-keys keep-mount removes them) */
uint8_t g_key2_ids[KEY2_MAX][16];
int g_nkey2_ids;

/* Option casefold of tree2: FS_CASEFOLD_FL on the new, empty (and not yet
 * encrypted) directory open as fd, read back.  Needs the casefold feature. */
void set_casefold(int fd, const char *p, int lineno)
{
	int flags = 0;

	if (ioctl(fd, E4_IOC_GETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_GETFLAGS on %s", lineno, p);
	flags |= E4_FS_CASEFOLD_FL;
	if (ioctl(fd, E4_IOC_SETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_SETFLAGS (casefold) on %s", lineno, p);
	flags = 0;
	if (ioctl(fd, E4_IOC_GETFLAGS, &flags) < 0)
		FAILE("line %d: FS_IOC_GETFLAGS on %s", lineno, p);
	if (!(flags & E4_FS_CASEFOLD_FL))
		fail("line %d: %s: casefold flag not set (flags 0x%x)", lineno, p, (unsigned)flags);
	say("e4dump-guest: %s casefolded (flags 0x%x)", p, (unsigned)flags);
}

/* 0 or errno; *size = policy size */
int get_policy_fd(int fd, struct e4_get_policy_ex_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->policy_size = sizeof(a->policy);
	if (ioctl(fd, E4_IOC_GET_ENCRYPTION_POLICY_EX, a) < 0)
		return errno;
	if (a->policy_size > sizeof(a->policy))
		return EOVERFLOW;
	return 0;
}

int get_policy(const char *rel, int is_dir, struct e4_get_policy_ex_arg *a)
{
	char p[4200];
	int fd, e;

	abs_path(p, sizeof(p), rel);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return errno;
	e = get_policy_fd(fd, a);
	close(fd);
	return e;
}

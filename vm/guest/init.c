/*
 * e4dump QEMU guest: /init of the test initramfs.
 *
 * Reads a scenario from /dev/vdb (offset 0, NUL-terminated, at most 64 KiB),
 * mounts the ext4 image /dev/vda on /mnt, executes the scenario (adds fscrypt
 * v1 and v2 keys, sets v1/v2 policies, writes deterministic trees), writes a manifest
 * of everything it created at offset 65536 of /dev/vdb (NUL-terminated),
 * unmounts /mnt, prints "E4DUMP-GUEST-OK" (or "E4DUMP-GUEST-FAIL: reason")
 * on the console and reboots (QEMU runs with -no-reboot, so it exits).
 * Kernel-probe commands (remount with options, forget-keys, no-key readdir,
 * lookups/opens/unlinks by the returned names, ...) record what the kernel
 * did as further manifest lines.
 *
 * This file: main and the mounts of the image.  The other files of
 * vm/guest/ are listed in guest.h.
 *
 * The scenario language, the manifest format and the content generator are
 * documented in vm/README.md; tests/vm/check_extract.py is an independent
 * reimplementation of the generator and must stay in sync with it.
 *
 * Build (vm/make-image.sh): gcc -static -O2 -Wall -Wextra -Werror -std=gnu11 -o init vm/guest/[every .c file]
 */
#include "guest.h"

static int g_vdb = -1;

char g_mountopts[1024]; /* data string of the current mount, "" = none */
int g_mounted;           /* 0 with "@nomount" until a mount succeeds */

static int mount_img(void)
{
	if (mount("/dev/vda", MNT, "ext4", 0, g_mountopts[0] ? g_mountopts : NULL) < 0)
		return -1;
	g_mounted = 1;
	return 0;
}

void umount_img(int lineno)
{
	if (g_mounted && umount2(MNT, 0) < 0)
		FAILE("line %d: umount " MNT, lineno);
	g_mounted = 0;
}

void remount_img(int lineno)
{
	umount_img(lineno);
	if (mount_img() < 0)
		FAILE("line %d: mount /dev/vda on " MNT " (ext4, options '%s')", lineno,
		      g_mountopts);
}

/* syncfs(/mnt): writes everything back and commits the journal transaction */
void sync_mnt(void)
{
	int fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		FAILE("open " MNT);
	if (syncfs(fd) < 0)
		FAILE("syncfs " MNT);
	close(fd);
}

/* syncfs, then evict every clean, unused dentry and inode */
void drop_caches(void)
{
	int fd;

	sync_mnt();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1)
		FAILE("write /proc/sys/vm/drop_caches");
	close(fd);
}

/* ---- main ------------------------------------------------------------------- */

static void setup_console(void)
{
	int fd;

	if (mkdir("/dev", 0755) < 0 && errno != EEXIST)
		FAILE("mkdir /dev");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) < 0 && errno != EBUSY)
		FAILE("mount devtmpfs");
	fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (mkdir("/proc", 0755) < 0 && errno != EEXIST)
		FAILE("mkdir /proc");
	if (mount("proc", "/proc", "proc", 0, NULL) < 0 && errno != EBUSY)
		FAILE("mount proc");
	if (mkdir(MNT, 0755) < 0 && errno != EEXIST)
		FAILE("mkdir " MNT);
}

static int open_retry(const char *path, int flags)
{
	int i, fd = -1;

	/* virtio probing is synchronous for built-in drivers, but be tolerant */
	for (i = 0; i < 50; i++) {
		fd = open(path, flags);
		if (fd >= 0 || errno != ENOENT)
			break;
		usleep(100000);
	}
	if (fd < 0)
		FAILE("open %s", path);
	return fd;
}

int main(void)
{
	char *scen = xmalloc(SCEN_MAX + 1);
	uint64_t devsize = 0;
	ssize_t n;
	long ks;

	umask(0);
	setup_console();
	say("e4dump-guest: starting");

	/* Give init a session keyring of its own; fscrypt v1 finds keys with
	 * request_key(), which searches the thread/process/session keyrings. */
	ks = syscall(SYS_keyctl, E4_KEYCTL_JOIN_SESSION_KEYRING, NULL);
	if (ks < 0)
		FAILE("keyctl(JOIN_SESSION_KEYRING)");

	g_vdb = open_retry("/dev/vdb", O_RDWR | O_CLOEXEC);
	if (ioctl(g_vdb, BLKGETSIZE64, &devsize) < 0)
		FAILE("BLKGETSIZE64 /dev/vdb");
	n = pread(g_vdb, scen, SCEN_MAX, 0);
	if (n < 0)
		FAILE("read scenario from /dev/vdb");
	scen[n] = '\0';
	if (!memchr(scen, '\0', (size_t)n))
		fail("scenario on /dev/vdb is not NUL-terminated within %d bytes", SCEN_MAX);

	open_retry("/dev/vda", O_RDONLY | O_CLOEXEC); /* wait for it */
	/* "@nomount": the scenario only probes mounts (mount-try) */
	if (!strstr(scen, "\n@nomount\n") && strncmp(scen, "@nomount\n", 9) &&
	    mount_img() < 0)
		FAILE("mount /dev/vda on " MNT " (ext4)");

	man_add("# e4dump-manifest 1\n");
	run_scenario(scen);
	man_add("end %zu\n", g_nent);

	if (MANIFEST_OFF + g_man_len + 1 > devsize)
		fail("manifest (%zu bytes) does not fit on /dev/vdb (%" PRIu64 " bytes)",
		     g_man_len, devsize);
	write_all(g_vdb, (const unsigned char *)g_man, g_man_len + 1 /* NUL */,
		  MANIFEST_OFF, "/dev/vdb (manifest)");
	if (fsync(g_vdb) < 0)
		FAILE("fsync /dev/vdb");
	if (close(g_vdb) < 0)
		FAILE("close /dev/vdb");
	if (g_capture)
		capture_wait();

	umount_img(0);
	umount_extra();
	sync();
	say("e4dump-guest: %zu entries, manifest %zu bytes", g_nent, g_man_len);
	say("E4DUMP-GUEST-OK");
	finish(1);
}

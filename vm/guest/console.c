/* e4dump QEMU guest: console messages, failures and power-off, allocation,
 * paths under /mnt, full writes. */
#include "guest.h"

/* Power off: the last thing the guest does, after its verdict is on the
 * console. */
void finish(int ok)
{
	(void)ok;
	sync();
	reboot(RB_AUTOBOOT);
	/* reboot() only returns on error; make the kernel panic (panic=-1
	 * reboots, and QEMU exits because of -no-reboot). */
	_exit(1);
}

void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0) {
		/* nothing sensible to do */
	}
}

void fail(const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("E4DUMP-GUEST-FAIL: %s", buf);
	umount2(MNT, 0);
	finish(0);
}

void fail_errno(int err, const char *fmt, ...)
{
	char buf[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fail("%s: %s (errno %d)", buf, strerror(err), err);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fail("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fail("out of memory");
	return p;
}

void abs_path(char *out, size_t n, const char *rel)
{
	if ((size_t)snprintf(out, n, MNT "/%s", rel) >= n)
		fail("path too long: %s", rel);
}

void write_all(int fd, const unsigned char *p, size_t n, off_t off, const char *what)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			FAILE("pwrite %s", what);
		}
		if (w == 0)
			fail("pwrite %s: wrote 0 bytes", what);
		p += w;
		n -= (size_t)w;
		off += w;
	}
}

void join(char *out, size_t n, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n)
		fail("path too long: %s/%s", dir, name);
}

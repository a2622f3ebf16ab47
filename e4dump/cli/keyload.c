#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hex.h"
#include "kdf.h"
#include "keyfile.h"
#include "escape.h"
#include "keyload.h"

/* Read up to cap bytes of path into buf; *len = cap + 1 when it holds
 * more.  -1 with errno. */
static int read_secret(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : 0;
	struct stat st;
	size_t got = 0;
	int err = 0;

	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = EISDIR;
		goto out;
	}
	while (got <= cap) {
		uint8_t extra;
		ssize_t n = got < cap ? read(fd, buf + got, cap - got) :
					read(fd, &extra, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	*len = got;
out:
	if (fd != 0)
		close(fd);
	if (err) {
		e4_wipe(buf, cap);
		errno = err;
		return -1;
	}
	return 0;
}

/* A file name as labels show it: escaped (it names a key in text and
 * JSON output), cut to fit. */
static const char *shown(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);
	char *e = malloc(E4_ESCAPE_SIZE(n));

	if (!e) {
		snprintf(out, len, "?");
		return out;
	}
	e4_escape((const uint8_t *)path, n, e, 0);
	snprintf(out, len, "%s", e);
	free(e);
	return out;
}

int keyload_file(struct e4_keystore *ks, const char *path, struct report *r)
{
	char label[300];
	uint8_t buf[512], key[E4_MAX_KEY_SIZE];
	size_t len, key_len;
	const char *why = NULL;
	enum e4_status st;

	if (read_secret(path, buf, sizeof(buf), &len)) {
		report_error(r, "key file %s: %s", path,
			     errno == EISDIR ? "is a directory" : strerror(errno));
		return -1;
	}
	if (len == 0)
		why = "empty";
	else if (len > sizeof(buf))
		why = "too large for a key";
	else if (e4_keyfile_parse(buf, len, key, &key_len, &why) == E4_OK)
		why = NULL;
	e4_wipe(buf, sizeof(buf));
	if (why) {
		e4_wipe(key, sizeof(key));
		report_error(r, "key file %s: %s", path, why);
		return -1;
	}
	st = e4_keystore_add(ks, key, key_len, shown(path, label, sizeof(label)));
	e4_wipe(key, sizeof(key));
	if (st != E4_OK) {
		report_error(r, "key file %s: %s", path, e4_status_str(st));
		return -1;
	}
	return 0;
}

int keyload_passphrase(struct e4_keystore *ks, const char *path,
		       const uint8_t *salt, size_t salt_len, struct report *r)
{
	uint8_t buf[1026];
	size_t len;
	char label[300];
	enum e4_status st;

	if (read_secret(path, buf, sizeof(buf), &len)) {
		report_error(r, "passphrase file %s: %s", path,
			     errno == EISDIR ? "is a directory" : strerror(errno));
		return -1;
	}
	if (len <= sizeof(buf) && len && buf[len - 1] == '\n') {
		len--;
		if (len && buf[len - 1] == '\r')
			len--;
	}
	if (len == 0 || len > 1024) {
		e4_wipe(buf, sizeof(buf));
		report_error(r, "passphrase file %s: %s", path,
			     len ? "passphrase longer than 1024 bytes" :
				   "empty passphrase");
		return -1;
	}
	snprintf(label, sizeof(label), "passphrase ");
	shown(path, label + strlen(label), sizeof(label) - strlen(label));
	st = e4_keystore_add_passphrase(ks, buf, len, salt, salt_len, label);
	e4_wipe(buf, sizeof(buf));
	if (st != E4_OK) {
		report_error(r, "passphrase file %s: key derivation failed: %s",
			     path, e4_status_str(st));
		return -1;
	}
	return 0;
}

long keyload_salt(const char *hex, uint8_t salt[256], struct report *r)
{
	long n = e4_hex_decode(hex, strlen(hex), salt, 256);

	if (n <= 0) {
		report_error(r, "--salt: \"%s\" is not 1 to 256 bytes of hex digits",
			     hex);
		return -1;
	}
	return n;
}

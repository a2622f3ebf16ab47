#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>
#include <sys/stat.h>
#include <termios.h>
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

/* Room for a key file of any form, comments and all. */
#define KEY_FILE_MAX 4096

int keyload_file(struct e4_keystore *ks, const char *path, struct report *r)
{
	char label[300];
	uint8_t buf[KEY_FILE_MAX];
	struct e4_keyfile kf;
	size_t len;
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
	else if (e4_keyfile_read(buf, len, &kf, &why) == E4_OK)
		why = NULL;
	e4_wipe(buf, sizeof(buf));
	if (why) {
		e4_wipe(&kf, sizeof(kf));
		report_error(r, "key file %s: %s", path, why);
		return -1;
	}
	shown(path, label, sizeof(label));
	st = kf.is_states ? e4_keystore_add_states(ks, &kf.states, label) :
			    e4_keystore_add(ks, kf.key, kf.key_len, label);
	e4_wipe(&kf, sizeof(kf));
	if (st != E4_OK) {
		report_error(r, "key file %s: %s", path, e4_status_str(st));
		return -1;
	}
	return 0;
}

/* What e4crypt reads as the passphrase, to the byte (e2fsprogs
 * misc/e4crypt.c: get_passphrase's fgets into 1024 bytes and the newline
 * cut, then pbkdf2_sha512 over strlen of it): the first line, at most
 * 1023 bytes, ending at its first NUL byte; a CR before the newline stays
 * part of it, and an empty one is a passphrase too.  Each of these is
 * said, since a file written by hand may not mean it. */
#define PASSPHRASE_MAX 1023

/* "-" on a terminal: a prompt on standard error and one line read with
 * echo off (the terminal's own line editing applies), the newline kept. */
static int read_tty_line(uint8_t *buf, size_t cap, size_t *len)
{
	struct termios old, quiet;
	size_t got = 0;
	int err = 0;

	if (tcgetattr(0, &old))
		return -1;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	if (tcsetattr(0, TCSAFLUSH, &quiet))
		return -1;
	fputs("Passphrase: ", stderr);
	fflush(stderr);
	while (got < cap) {
		ssize_t n = read(0, buf + got, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		if (buf[got++] == '\n')
			break;
	}
	tcsetattr(0, TCSAFLUSH, &old);
	fputs("\n", stderr);
	*len = got;
	if (err) {
		e4_wipe(buf, cap);
		errno = err;
		return -1;
	}
	return 0;
}

int keyload_read_passphrase(const char *path, struct secret *sec,
			    struct report *r)
{
	int tty = !strcmp(path, "-") && isatty(0);

	memset(sec, 0, sizeof(*sec));
	sec->path = path;
	if (tty ? read_tty_line(sec->buf, sizeof(sec->buf) - 1, &sec->len) :
		  read_secret(path, sec->buf, sizeof(sec->buf), &sec->len)) {
		report_error(r, "passphrase file %s: %s", path,
			     errno == EISDIR ? "is a directory" : strerror(errno));
		return -1;
	}
	if (sec->len == 0) {
		report_error(r, "passphrase file %s: empty file (e4crypt and fscrypt read no passphrase from it)",
			     path);
		return -1;
	}
	if (sec->len > sizeof(sec->buf)) {
		sec->len = sizeof(sec->buf); /* more follows */
		sec->more = 1;
	}
	return 0;
}

void keyload_secret_wipe(struct secret *sec)
{
	e4_wipe(sec->buf, sizeof(sec->buf));
	sec->len = 0;
}

int keyload_e4crypt(struct e4_keystore *ks, const struct secret *sec,
		    const uint8_t *salt, size_t salt_len, struct report *r)
{
	const uint8_t *buf = sec->buf, *nl, *nul;
	const char *path = sec->path;
	size_t len = sec->len, line;
	char label[300];
	enum e4_status st;

	nl = memchr(buf, '\n', len);
	line = nl ? (size_t)(nl - buf) : len;
	if (line > PASSPHRASE_MAX) {
		report_warning(r, "passphrase file %s: longer than %d bytes; its first %d are the passphrase, as e4crypt reads it",
			       path, PASSPHRASE_MAX, PASSPHRASE_MAX);
		line = PASSPHRASE_MAX;
	} else if (nl && ((size_t)(nl - buf) + 1 < len || sec->more)) {
		report_warning(r, "passphrase file %s: only its first line is the passphrase, as e4crypt reads it",
			       path);
	}
	nul = memchr(buf, 0, line);
	if (nul) {
		report_warning(r, "passphrase file %s: a NUL byte at offset %zu ends the passphrase, as e4crypt reads it",
			       path, (size_t)(nul - buf));
		line = (size_t)(nul - buf);
	} else if (line && buf[line - 1] == '\r') {
		report_warning(r, "passphrase file %s: the passphrase ends with a carriage return, kept as e4crypt keeps it",
			       path);
	}
	if (line == 0)
		report_warning(r, "passphrase file %s: the passphrase is empty; e4crypt derives a key from it all the same",
			       path);
	snprintf(label, sizeof(label), "passphrase ");
	shown(path, label + strlen(label), sizeof(label) - strlen(label));
	st = e4_keystore_add_passphrase(ks, buf, line, salt, salt_len, label);
	if (st != E4_OK) {
		report_error(r, "passphrase file %s: key derivation failed: %s",
			     path, e4_status_str(st));
		return -1;
	}
	return 0;
}

int keyload_passphrase(struct e4_keystore *ks, const char *path,
		       const uint8_t *salt, size_t salt_len, struct report *r)
{
	struct secret sec;
	int rc = keyload_read_passphrase(path, &sec, r);

	if (!rc)
		rc = keyload_e4crypt(ks, &sec, salt, salt_len, r);
	keyload_secret_wipe(&sec);
	return rc;
}

/* What fscrypt 0.3.3 reads as a passphrase (cmd/fscrypt/keys.go,
 * passphraseReader, for a terminal and for a pipe alike): byte by byte up
 * to the first CR or LF (or the end), a BS (8) or DEL (127) taking back
 * the byte before it, a Ctrl-C (3) or Ctrl-D (4) cancelling; NUL bytes
 * are part of it. */
int keyload_fscrypt_passphrase(const struct secret *sec, uint8_t *out,
			       size_t *out_len, struct report *r)
{
	size_t n = 0, i;
	int edited = 0;

	for (i = 0; i < sec->len; i++) {
		uint8_t c = sec->buf[i];

		if (c == '\r' || c == '\n')
			break;
		if (c == 3 || c == 4) {
			report_error(r, "passphrase file %s: a Ctrl-%c byte at offset %zu, where fscrypt stops reading and gives up",
				     sec->path, c == 3 ? 'C' : 'D', i);
			e4_wipe(out, n);
			return -1;
		}
		if (c == 8 || c == 127) {
			n -= n > 0;
			edited = 1;
			continue;
		}
		out[n++] = c;
	}
	if (i == sec->len && sec->more) {
		report_error(r, "passphrase file %s: its first line is longer than %zu bytes",
			     sec->path, sizeof(sec->buf));
		e4_wipe(out, n);
		return -1;
	}
	if (edited)
		report_warning(r, "passphrase file %s: backspace or delete bytes take back the byte before them, as fscrypt reads a passphrase",
			       sec->path);
	*out_len = n;
	return 0;
}

int keyload_protector_key(const char *path, uint8_t key[E4_FSC_KEY],
			  struct report *r)
{
	uint8_t buf[E4_FSC_KEY];
	size_t len;

	if (read_secret(path, buf, sizeof(buf), &len)) {
		report_error(r, "protector key file %s: %s", path,
			     errno == EISDIR ? "is a directory" : strerror(errno));
		return -1;
	}
	if (len != E4_FSC_KEY) {
		e4_wipe(buf, sizeof(buf));
		report_error(r, "protector key file %s: %s; fscrypt's raw key files are exactly 32 bytes",
			     path, len > E4_FSC_KEY ? "more than 32 bytes" : "fewer than 32 bytes");
		return -1;
	}
	memcpy(key, buf, E4_FSC_KEY);
	e4_wipe(buf, sizeof(buf));
	return 0;
}

long keyload_salt(const char *arg, uint8_t salt[256], struct report *r)
{
	uuid_t uu;
	long n;

	if (!strncmp(arg, "s:", 2)) {
		/* literal text, as e4crypt: shorter than EXT4_MAX_SALT_SIZE */
		n = (long)strlen(arg + 2);
		if (n >= 256) {
			report_error(r, "--salt: \"s:\" text longer than 255 bytes");
			return -1;
		}
		memcpy(salt, arg + 2, (size_t)n);
		return n;
	}
	if (!strncmp(arg, "f:", 2) || arg[0] == '/') {
		report_error(r, "--salt: \"%s\" asks a mounted filesystem's kernel for its salt; "
			     "offline that is the image's s_encrypt_pw_salt, used without --salt", arg);
		return -1;
	}
	if (!strncmp(arg, "0x", 2)) {
		n = e4_hex_decode(arg + 2, strlen(arg + 2), salt, 256);
		if (n < 0 || (n == 0 && arg[2])) {
			report_error(r, "--salt: \"%s\" is not 0x and at most 256 bytes of hex digits",
				     arg);
			return -1;
		}
		return n;
	}
	if (strlen(arg) == 36 && uuid_parse(arg, uu) == 0) {
		memcpy(salt, uu, 16);
		return 16;
	}
	n = e4_hex_decode(arg, strlen(arg), salt, 256);
	if (n <= 0) {
		report_error(r, "--salt: \"%s\" is none of s:TEXT, 0xHEX, a UUID or HEX (1 to 256 bytes)",
			     arg);
		return -1;
	}
	return n;
}

int keyload_write_key(const char *dir, const char *name, const void *bytes,
		      size_t len, const char *option, struct report *r)
{
	char path[4096];
	int fd;
	ssize_t n;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		report_error(r, "%s %s: %s", option, dir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.key", dir, name) >= sizeof(path)) {
		report_error(r, "%s %s: path too long", option, dir);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		report_error(r, "%s: %s: %s", option, path, strerror(errno));
		return -1;
	}
	n = write(fd, bytes, len);
	if (n < 0 || (size_t)n != len) {
		report_error(r, "%s: %s: %s", option, path, n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	if (close(fd)) {
		report_error(r, "%s: %s: %s", option, path, strerror(errno));
		return -1;
	}
	return 0;
}

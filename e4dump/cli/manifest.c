#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "escape.h"
#include "file.h"
#include "manifest.h"

struct manifest {
	FILE *f;
	pthread_mutex_t lock;
	int failed;
};

struct manifest *manifest_open(const char *path, struct report *r)
{
	struct manifest *m = calloc(1, sizeof(*m));
	int fd;

	if (!m) {
		report_error(r, "out of memory");
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(m->f = fdopen(fd, "w"))) {
		report_error(r, "--manifest %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(m);
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	fputs("path\tinode\tsize\tmd5\tsha1\tsha256\tciphertext_sha256\tatime\tmtime\tctime\tcrtime\n",
	      m->f);
	return m;
}

int manifest_close(struct manifest *m, struct report *r)
{
	int bad;

	if (!m)
		return 0;
	bad = m->failed || ferror(m->f);
	if (fclose(m->f))
		bad = 1;
	if (bad)
		report_error(r, "--manifest: writing it failed");
	pthread_mutex_destroy(&m->lock);
	free(m);
	return bad ? -1 : 0;
}

static void iso(const struct e4_timestamp *ts, char *buf, size_t len)
{
	time_t t = (time_t)ts->sec;
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm) || !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)))
		snprintf(buf, len, "-");
	else
		snprintf(buf + n, len - n, ".%09" PRIu32 "Z", ts->nsec);
}

char *manifest_row_start(const char *out_path, const struct e4_inode *in,
			 const char *ct_sha256_hex)
{
	char a[48], m[48], c[48], cr[48] = "-", *row, *path;
	size_t n = strlen(out_path);
	int k;

	iso(&in->atime, a, sizeof(a));
	iso(&in->mtime, m, sizeof(m));
	iso(&in->ctime, c, sizeof(c));
	if (in->has_crtime)
		iso(&in->crtime, cr, sizeof(cr));
	/* "path inode size" '\n' "ciphertext times": the plaintext hashes go
	 * between (the path is escaped: it has no newline) */
	path = malloc(E4_ESCAPE_SIZE(n));
	if (!path)
		return NULL;
	e4_escape((const uint8_t *)out_path, n, path, 0);
	k = asprintf(&row, "%s\t%" PRIu32 "\t%" PRIu64 "\n%s\t%s\t%s\t%s\t%s", path,
		     in->ino, in->size, ct_sha256_hex, a, m, c, cr);
	free(path);
	return k < 0 ? NULL : row;
}

static void hex(const unsigned char *p, unsigned int n, char *out)
{
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

int manifest_hash(int fd, uint64_t size, char *hashes)
{
	static const size_t bufsize = 256 * 1024;
	EVP_MD_CTX *ctx[3] = { EVP_MD_CTX_new(), EVP_MD_CTX_new(), EVP_MD_CTX_new() };
	const EVP_MD *md[3] = { EVP_md5(), EVP_sha1(), EVP_sha256() };
	unsigned char *buf = NULL, d[EVP_MAX_MD_SIZE];
	char *p = hashes;
	off_t off = 0;
	ssize_t n = 0;
	int rc = -1;

	if (size > MANIFEST_MAX_HASHED) {
		snprintf(hashes, MANIFEST_HASHES, "-\t-\t-");
		rc = 0;
		goto out;
	}
	buf = malloc(bufsize);
	for (int i = 0; i < 3; i++)
		if (!ctx[i] || !EVP_DigestInit_ex(ctx[i], md[i], NULL))
			goto out;
	while (buf && (n = pread(fd, buf, bufsize, off)) > 0) {
		for (int i = 0; i < 3; i++)
			EVP_DigestUpdate(ctx[i], buf, (size_t)n);
		off += n;
	}
	if (!buf || n < 0)
		goto out;
	for (int i = 0; i < 3; i++) {
		unsigned int len = 0;

		EVP_DigestFinal_ex(ctx[i], d, &len);
		hex(d, len, p);
		p += 2 * len;
		*p++ = i < 2 ? '\t' : 0;
	}
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		EVP_MD_CTX_free(ctx[i]);
	free(buf);
	return rc;
}

int manifest_write(struct manifest *m, char *start, const char *hashes)
{
	char *tail = strchr(start, '\n');
	int rc = 0;

	if (!tail) {
		free(start);
		return -1;
	}
	*tail++ = 0;
	pthread_mutex_lock(&m->lock);
	if (fprintf(m->f, "%s\t%s\t%s\n", start, hashes, tail) < 0)
		m->failed = rc = -1;
	pthread_mutex_unlock(&m->lock);
	free(start);
	return rc;
}

int manifest_row(struct manifest *m, char *start, int fd, uint64_t size,
		 struct report *r)
{
	char hashes[MANIFEST_HASHES];

	if (manifest_hash(fd, size, hashes)) {
		report_error(r, "--manifest: cannot hash an extracted file");
		free(start);
		return -1;
	}
	return manifest_write(m, start, hashes);
}

static int hash_sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	(void)off;
	return !EVP_DigestUpdate(arg, data, len);
}

int manifest_ct_sha256(struct e4_fs *fs, const struct e4_inode *in,
		       const char *path, char out[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	int rc = -1;

	if (in->size > MANIFEST_MAX_HASHED) {
		snprintf(out, 65, "-");
		EVP_MD_CTX_free(ctx);
		return 0;
	}
	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	    e4_inode_stream_raw(fs, in, path, hash_sink, ctx) == E4_OK &&
	    EVP_DigestFinal_ex(ctx, d, &len)) {
		hex(d, len, out);
		rc = 0;
	}
	EVP_MD_CTX_free(ctx);
	return rc;
}

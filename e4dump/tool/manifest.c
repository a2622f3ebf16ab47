#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "dfxml.h"
#include "file.h"
#include "hex.h"
#include "jsonout.h"
#include "manifest.h"
#include "session.h"

struct manifest {
	FILE *f;                /* --manifest, or NULL */
	struct dfxml *x;        /* --dfxml, or NULL */
	pthread_mutex_t lock;
	int failed;
	int xattrs_quiet;       /* the DFXML's reading of xattrs reports nothing */
};

/* A new file, never one that exists. */
static int create(const char *path, struct report *r, const char *opt)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		report_error(r, "%s %s: %s", opt, path, strerror(errno));
	return fd;
}

struct manifest *manifest_open(const char *tsv, const char *dfxml,
			       const char *image, struct e4_fs *fs,
			       int argc, char **argv, struct report *r)
{
	return manifest_open_for(tsv, dfxml, image, fs, 0, argc, argv, r);
}

struct manifest *manifest_open_for(const char *tsv, const char *dfxml,
				   const char *image, struct e4_fs *fs, int deleted,
				   int argc, char **argv, struct report *r)
{
	struct manifest *m = calloc(1, sizeof(*m));
	int fd;

	if (!m) {
		report_error(r, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	if (tsv) {
		fd = create(tsv, r, "--manifest");
		if (fd < 0 || !(m->f = fdopen(fd, "w"))) {
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		fputs(MANIFEST_COLUMNS "\n", m->f);
	}
	if (dfxml) {
		fd = create(dfxml, r, "--dfxml");
		if (fd < 0)
			goto fail;
		m->x = dfxml_open(fd, dfxml, image, fs, deleted, argc, argv, r);
		if (!m->x)
			goto fail;
	}
	return m;
fail:
	manifest_close(m, r);
	return NULL;
}

int manifest_close(struct manifest *m, struct report *r)
{
	int bad;

	if (!m)
		return 0;
	bad = m->failed;
	if (m->f) {
		bad |= ferror(m->f);
		if (fclose(m->f))
			bad = 1;
	}
	if (m->x && dfxml_close(m->x))
		bad = 1;
	if (bad)
		report_error(r, "--manifest/--dfxml: writing failed");
	pthread_mutex_destroy(&m->lock);
	free(m);
	return bad ? -1 : 0;
}

int manifest_dfxml(const struct manifest *m)
{
	return m && m->x;
}

struct manifest_row *manifest_row_new(const char *type)
{
	struct manifest_row *row = calloc(1, sizeof(*row));

	if (row) {
		record_init(&row->rec, type);
		row->rec.hashes.of = "plaintext";
	}
	return row;
}

struct manifest_row *manifest_row_start(const char *out_path,
					const struct e4_inode *in,
					const char *ct_sha256_hex)
{
	struct manifest_row *row = manifest_row_new("extracted");

	/* escaped: no newline, tab or control byte in the TSV or the XML */
	if (!row || record_set_output(&row->rec, out_path) || !(row->rec.path = strdup("-"))) {
		manifest_row_free(row);
		return NULL;
	}
	row->rec.ino = in->ino;
	row->rec.have_inode = 1;
	row->rec.inode = *in;
	row->rec.size = in->size;
	manifest_row_ct(row, ct_sha256_hex);
	return row;
}

void manifest_row_ct(struct manifest_row *row, const char *ct_sha256_hex)
{
	if (row && strcmp(ct_sha256_hex, "-"))
		snprintf(row->rec.hashes.ciphertext_sha256,
			 sizeof(row->rec.hashes.ciphertext_sha256), "%s", ct_sha256_hex);
}

void manifest_row_status(struct manifest_row *row, const char *status)
{
	if (row)
		row->rec.status = status;
}

void manifest_row_ciphertext(struct manifest_row *row)
{
	if (row)
		row->rec.hashes.of = "ciphertext";
}

int manifest_row_path(struct manifest_row *row, const char *image_path)
{
	char *p = strdup(image_path);

	if (!p)
		return -1;
	free(row->rec.path);
	row->rec.path = p;
	return 0;
}

struct manifest_row *manifest_row_entry(struct manifest *m, struct session *s,
					const struct e4_walk_node *n,
					const char *out_path,
					const char *ct_sha256_hex, int map_read)
{
	struct manifest_row *row;

	if (!m->x) {
		/* the TSV needs no more */
		row = manifest_row_start(out_path, n->inode, ct_sha256_hex);
		if (row && manifest_row_path(row, n->path)) {
			manifest_row_free(row);
			return NULL;
		}
		return row;
	}
	if (!(row = manifest_row_new("extracted")))
		return NULL;
	/* read for e4:xattrs_error alone */
	row->rec.xattrs_quiet = m->xattrs_quiet;
	/* where its bytes are: when its map was read without an error */
	if (record_from_node(&row->rec, s, n) || record_set_output(&row->rec, out_path) ||
	    (map_read && record_read_runs(&row->rec, s))) {
		manifest_row_free(row);
		return NULL;
	}
	manifest_row_ct(row, ct_sha256_hex);
	return row;
}

void manifest_xattrs_quiet(struct manifest *m)
{
	if (m)
		m->xattrs_quiet = 1;
}

void manifest_row_free(struct manifest_row *row)
{
	if (!row)
		return;
	record_free(&row->rec);
	free(row);
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
		e4_hex_encode(d, len, p);
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

/* The record's time as the TSV shows it ("-": none) */
static const char *tsv_time(const struct e4_timestamp *ts, char buf[JSON_TIME_MAX])
{
	json_time_text(ts, buf);
	return buf;
}

int manifest_write(struct manifest *m, struct manifest_row *row,
		   const char *hashes, const char *unreadable)
{
	struct record *r = row ? &row->rec : NULL;
	const struct e4_inode *in;
	char t[4][JSON_TIME_MAX];
	int rc = 0;

	if (!row)
		return -1;
	in = &r->inode;
	record_set_hashes(r, r->hashes.of, hashes);
	if (unreadable && !(r->unreadable = strdup(unreadable))) {
		manifest_row_free(row);
		return -1;
	}
	/* as extract's JSON says: kept locked is the caller's word */
	if (!r->status)
		r->status = r->unreadable ? "partial" : "complete";
	pthread_mutex_lock(&m->lock);
	/* the TSV: regular files written, the columns of MANIFEST_COLUMNS */
	if (m->f && r->output_path && !E4_ISDIR(in->mode) && !E4_ISLNK(in->mode) &&
	    fprintf(m->f, "%s\t%" PRIu32 "\t%" PRIu64 "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n",
		    r->path, r->ino, in->size, hashes,
		    r->hashes.ciphertext_sha256[0] ? r->hashes.ciphertext_sha256 : "-",
		    tsv_time(&in->atime, t[0]), tsv_time(&in->mtime, t[1]),
		    tsv_time(&in->ctime, t[2]),
		    in->has_crtime ? tsv_time(&in->crtime, t[3]) : "-",
		    r->unreadable ? r->unreadable : "-", r->output_path, r->hashes.of,
		    record_hashes_partial(r) ? "-partial" : "") < 0)
		m->failed = rc = -1;
	if (m->x && dfxml_fileobject(m->x, r))
		m->failed = rc = -1;
	pthread_mutex_unlock(&m->lock);
	manifest_row_free(row);
	return rc;
}

int manifest_row(struct manifest *m, struct manifest_row *start, int fd,
		 uint64_t size, const char *unreadable, struct report *r)
{
	char hashes[MANIFEST_HASHES];

	if (manifest_hash(fd, size, hashes)) {
		report_error(r, "--manifest: cannot hash an extracted file");
		manifest_row_free(start);
		return -1;
	}
	return manifest_write(m, start, hashes, unreadable);
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
		e4_hex_encode(d, len, out);
		rc = 0;
	}
	EVP_MD_CTX_free(ctx);
	return rc;
}

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
#include "dfxml.h"
#include "escape.h"
#include "file.h"
#include "hex.h"
#include "inodeinfo.h"
#include "jsonout.h"
#include "manifest.h"
#include "modes.h"
#include "session.h"

struct manifest {
	FILE *f;                /* --manifest, or NULL */
	struct dfxml *x;        /* --dfxml, or NULL */
	pthread_mutex_t lock;
	int failed;
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
		m->x = dfxml_open(fd, dfxml, image, fs, argc, argv, r);
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

/* raw bytes in the display form, malloc'd */
static char *escaped(const char *raw)
{
	size_t n = strlen(raw);
	char *e = malloc(E4_ESCAPE_SIZE(n));

	if (e)
		e4_escape((const uint8_t *)raw, n, e, 0);
	return e;
}

struct manifest_row *manifest_row_start(const char *out_path,
					const struct e4_inode *in,
					const char *ct_sha256_hex)
{
	struct manifest_row *row = calloc(1, sizeof(*row));

	/* escaped: no newline, tab or control byte in the TSV or the XML */
	if (!row || !(row->out_path = escaped(out_path)) || !(row->path = strdup("-"))) {
		manifest_row_free(row);
		return NULL;
	}
	row->ino = in->ino;
	row->size = in->size;
	snprintf(row->ct, sizeof(row->ct), "%s", ct_sha256_hex);
	iso(&in->atime, row->times[0], sizeof(row->times[0]));
	iso(&in->mtime, row->times[1], sizeof(row->times[1]));
	iso(&in->ctime, row->times[2], sizeof(row->times[2]));
	snprintf(row->times[3], sizeof(row->times[3]), "-");
	if (in->has_crtime)
		iso(&in->crtime, row->times[3], sizeof(row->times[3]));
	return row;
}

int manifest_row_path(struct manifest_row *row, const char *image_path)
{
	char *p = strdup(image_path);

	if (!p)
		return -1;
	free(row->path);
	row->path = p;
	return 0;
}

/* The facts of in's encryption context, with the key that opens it. */
static void policy_of(struct session *s, const struct e4_inode *in,
		      struct manifest_policy *p)
{
	struct e4_context c;
	struct e4_policy_key pk;
	const char *why = NULL;
	enum e4_status st;

	p->encrypted = in->encrypted;
	if (!in->encrypted)
		return;
	st = e4_inode_context(s->fs, in, &c, &why);
	if (st != E4_OK && st != E4_UNRECOGNIZED) {
		snprintf(p->error, sizeof(p->error), "%s", why ? why : e4_status_str(st));
		return;
	}
	p->version = c.version;
	if (c.version != E4_CONTEXT_V1 && c.version != E4_CONTEXT_V2) {
		snprintf(p->error, sizeof(p->error), "%s", why ? why : "unknown version");
		return;
	}
	p->known = 1;
	p->contents_mode = c.contents_mode;
	p->filenames_mode = c.filenames_mode;
	p->flags = c.flags;
	p->v2 = c.version == E4_CONTEXT_V2;
	e4_hex_encode(c.key_id, c.key_id_size, p->key_id);
	e4_hex_encode(c.nonce, sizeof(c.nonce), p->nonce);
	if (st == E4_OK && e4_fs_policy_key(s->fs, &c, &pk) == E4_OK && pk.open)
		p->key = escaped(pk.key >= 0 ?
			e4_keystore_key(s->keys, (size_t)pk.key)->label : "dummy key");
	p->locked = inode_locked(s, in);
}

struct manifest_row *manifest_row_entry(struct manifest *m, struct session *s,
					const struct e4_walk_node *n,
					const char *out_path,
					const char *ct_sha256_hex, int map_read)
{
	const struct e4_inode *in = n->inode;
	struct manifest_row *row = manifest_row_start(out_path, in, ct_sha256_hex);
	const char *state;

	if (!row || manifest_row_path(row, n->path)) {
		manifest_row_free(row);
		return NULL;
	}
	if (!m->x)
		return row; /* the TSV needs no more */
	row->described = 1;
	row->kind = E4_ISDIR(in->mode) ? MANIFEST_DIR :
		    E4_ISLNK(in->mode) ? MANIFEST_SYMLINK : MANIFEST_FILE;
	row->mode = in->mode;
	row->uid = in->uid;
	row->gid = in->gid;
	row->links = in->links;
	row->shown_size = inode_stat_size(s, in, n->path);
	snprintf(row->dtime, sizeof(row->dtime), "-");
	if (in->dtime) {
		struct e4_timestamp dt = { in->dtime, 0 };

		iso(&dt, row->dtime, sizeof(row->dtime));
	}
	if (row->kind == MANIFEST_SYMLINK)
		row->target = inode_target(s, in, n->path, &state);
	if (n->entry) {
		row->name_state = json_name_state(n->entry->state);
		if (n->entry->raw_len && (row->raw_name_hex = malloc(2 * n->entry->raw_len + 1)))
			e4_hex_encode(n->entry->raw, n->entry->raw_len, row->raw_name_hex);
	}
	/* where its bytes are: a file, directory or slow symlink not inline */
	if (map_read && (row->kind != MANIFEST_SYMLINK || in->blocks) &&
	    !(in->flags & E4_INODE_INLINE_DATA_FL) &&
	    e4_inode_runs(s->fs, in, n->path, e4_inode_size_blocks(s->fs, in),
			  &row->runs, &row->nruns) != E4_OK) {
		free(row->runs);
		row->runs = NULL;
		row->nruns = 0;
	}
	policy_of(s, in, &row->enc);
	return row;
}

void manifest_row_free(struct manifest_row *row)
{
	if (!row)
		return;
	free(row->path);
	free(row->out_path);
	free(row->target);
	free(row->raw_name_hex);
	free(row->runs);
	free(row->enc.key);
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

int manifest_write(struct manifest *m, struct manifest_row *row,
		   const char *hashes, const char *unreadable)
{
	int rc = 0;

	if (!row)
		return -1;
	pthread_mutex_lock(&m->lock);
	/* the TSV: regular files, the columns of MANIFEST_COLUMNS */
	if (m->f && row->kind == MANIFEST_FILE &&
	    fprintf(m->f, "%s\t%" PRIu32 "\t%" PRIu64 "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		    row->path, row->ino, row->size, hashes, row->ct,
		    row->times[0], row->times[1], row->times[2], row->times[3],
		    unreadable ? unreadable : "-", row->out_path) < 0)
		m->failed = rc = -1;
	if (m->x && dfxml_fileobject(m->x, row, hashes, unreadable))
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

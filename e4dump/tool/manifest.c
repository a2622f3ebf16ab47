#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxml/xmlwriter.h>
#include <openssl/evp.h>
#include "escape.h"
#include "file.h"
#include "manifest.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

struct manifest {
	FILE *f;                /* --manifest, or NULL */
	xmlTextWriterPtr x;     /* --dfxml, or NULL */
	int dfxml_fd;
	pthread_mutex_t lock;
	int failed;
};

struct manifest_row {
	char *path;             /* escaped */
	uint32_t ino;
	uint64_t size;
	char ct[65];
	char times[4][48];      /* atime, mtime, ctime, crtime ("-": none) */
	const char *hashes_of;  /* "plaintext", or "ciphertext" (kept locked) */
};

static const char *const time_names[4] = { "atime", "mtime", "ctime", "crtime" };

/* Every string of DFXML: e4_escape's form (as the manifest, ls and the
 * terminal show names: control bytes, '\\', ill-formed UTF-8 as \\xHH),
 * already (escaped: 1) or here, and also the noncharacters U+FFFE and
 * U+FFFF, well-formed UTF-8 that XML 1.0 does not allow, as \\xHH of their
 * three bytes.  So the XML is always well-formed and the bytes come back
 * by decoding \\xHH.  malloc'd, or NULL. */
static char *xml_text(const char *s, int escaped)
{
	size_t n = strlen(s), o = 0;
	char *e = malloc(E4_ESCAPE_SIZE(n)), *out;

	if (!e)
		return NULL;
	if (escaped)
		memcpy(e, s, n + 1);
	else
		e4_escape((const uint8_t *)s, n, e, 0);
	n = strlen(e);
	/* each 3-byte noncharacter becomes 12 bytes */
	if (!(out = malloc(4 * n + 1))) {
		free(e);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *u = (const uint8_t *)e + i;

		if (i + 2 < n && u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf)) {
			o += (size_t)sprintf(out + o, "\\xef\\xbf\\x%02x", u[2]);
			i += 2;
		} else {
			out[o++] = e[i];
		}
	}
	out[o] = 0;
	free(e);
	return out;
}

/* A new file, never one that exists. */
static int create(const char *path, struct report *r, const char *opt)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		report_error(r, "%s %s: %s", opt, path, strerror(errno));
	return fd;
}

/* DFXML's header: fiwalk's layout (dfxml, metadata, creator, source). */
static int dfxml_start(xmlTextWriterPtr x, const char *image, int argc, char **argv)
{
	char *cmd = NULL, *xcmd, *ximage;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	int bad;

	for (int i = 0; f && i < argc; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	if (!f || fclose(f))
		return -1;
	xcmd = xml_text(cmd, 0);
	ximage = xml_text(image, 0);
	bad = !xcmd || !ximage || xmlTextWriterSetIndent(x, 1) < 0 ||
	      xmlTextWriterStartDocument(x, NULL, "UTF-8", NULL) < 0 ||
	      xmlTextWriterStartElement(x, BAD_CAST "dfxml") < 0 ||
	      xmlTextWriterWriteAttribute(x, BAD_CAST "xmloutputversion", BAD_CAST "1.0") < 0 ||
	      xmlTextWriterWriteAttribute(x, BAD_CAST "xmlns",
		BAD_CAST "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML") < 0 ||
	      xmlTextWriterWriteAttribute(x, BAD_CAST "xmlns:dc",
		BAD_CAST "http://purl.org/dc/elements/1.1/") < 0 ||
	      xmlTextWriterWriteAttribute(x, BAD_CAST "xmlns:e4dump",
		BAD_CAST "https://e4dump.invalid/dfxml") < 0 ||
	      xmlTextWriterStartElement(x, BAD_CAST "metadata") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "dc:type", BAD_CAST "Extracted files") < 0 ||
	      xmlTextWriterEndElement(x) < 0 ||
	      xmlTextWriterStartElement(x, BAD_CAST "creator") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "program", BAD_CAST "e4dump") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "version", BAD_CAST E4DUMP_VERSION) < 0 ||
	      xmlTextWriterStartElement(x, BAD_CAST "execution_environment") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "command_line", BAD_CAST xcmd) < 0 ||
	      xmlTextWriterEndElement(x) < 0 || xmlTextWriterEndElement(x) < 0 ||
	      xmlTextWriterStartElement(x, BAD_CAST "source") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "image_filename", BAD_CAST ximage) < 0 ||
	      xmlTextWriterEndElement(x) < 0;
	free(cmd);
	free(xcmd);
	free(ximage);
	return bad ? -1 : 0;
}

struct manifest *manifest_open(const char *tsv, const char *dfxml,
			       const char *image, int argc, char **argv,
			       struct report *r)
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
		fputs("path\tinode\tsize\tmd5\tsha1\tsha256\tciphertext_sha256\tatime\tmtime\tctime\tcrtime\tunreadable\thashes_of\n",
		      m->f);
	}
	if (dfxml) {
		xmlOutputBufferPtr out;

		fd = create(dfxml, r, "--dfxml");
		if (fd < 0)
			goto fail;
		out = xmlOutputBufferCreateFd(fd, NULL);
		m->x = out ? xmlNewTextWriter(out) : NULL;
		if (!m->x) {
			if (out)
				xmlOutputBufferClose(out);
			close(fd);
			report_error(r, "--dfxml %s: out of memory", dfxml);
			goto fail;
		}
		/* the buffer does not own fd: closed in manifest_close */
		if (dfxml_start(m->x, image, argc, argv)) {
			report_error(r, "--dfxml %s: write failed", dfxml);
			m->failed = 1;
		}
		m->dfxml_fd = fd;
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
	if (m->x) {
		if (xmlTextWriterEndDocument(m->x) < 0 || xmlTextWriterFlush(m->x) < 0)
			bad = 1;
		xmlFreeTextWriter(m->x);
		if (close(m->dfxml_fd))
			bad = 1;
	}
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

struct manifest_row *manifest_row_start(const char *out_path,
					const struct e4_inode *in,
					const char *ct_sha256_hex)
{
	struct manifest_row *row = calloc(1, sizeof(*row));
	size_t n = strlen(out_path);

	if (!row || !(row->path = malloc(E4_ESCAPE_SIZE(n)))) {
		free(row);
		return NULL;
	}
	/* escaped: no newline, tab or control byte in the TSV or the XML */
	e4_escape((const uint8_t *)out_path, n, row->path, 0);
	row->ino = in->ino;
	row->size = in->size;
	row->hashes_of = "plaintext";
	snprintf(row->ct, sizeof(row->ct), "%s", ct_sha256_hex);
	iso(&in->atime, row->times[0], sizeof(row->times[0]));
	iso(&in->mtime, row->times[1], sizeof(row->times[1]));
	iso(&in->ctime, row->times[2], sizeof(row->times[2]));
	snprintf(row->times[3], sizeof(row->times[3]), "-");
	if (in->has_crtime)
		iso(&in->crtime, row->times[3], sizeof(row->times[3]));
	return row;
}

void manifest_row_ciphertext(struct manifest_row *row)
{
	if (row)
		row->hashes_of = "ciphertext";
}

void manifest_row_free(struct manifest_row *row)
{
	if (!row)
		return;
	free(row->path);
	free(row);
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

/* A fileobject as fiwalk writes one, the manifest's columns in it. */
static int dfxml_row(xmlTextWriterPtr x, const struct manifest_row *row,
		     const char *hashes, const char *unreadable)
{
	static const char *const types[3] = { "md5", "sha1", "sha256" };
	char num[24], digest[3][129], *name;
	int bad;

	if (sscanf(hashes, "%128[^\t]\t%128[^\t]\t%128s", digest[0], digest[1], digest[2]) != 3)
		return -1;
	if (!(name = xml_text(row->path, 1)))
		return -1;
	bad = xmlTextWriterStartElement(x, BAD_CAST "fileobject") < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "filename", BAD_CAST name) < 0 ||
	      xmlTextWriterWriteElement(x, BAD_CAST "name_type", BAD_CAST "r") < 0;
	snprintf(num, sizeof(num), "%" PRIu64, row->size);
	bad = bad || xmlTextWriterWriteElement(x, BAD_CAST "filesize", BAD_CAST num) < 0;
	snprintf(num, sizeof(num), "%" PRIu32, row->ino);
	bad = bad || xmlTextWriterWriteElement(x, BAD_CAST "inode", BAD_CAST num) < 0;
	for (int i = 0; i < 4 && !bad; i++)
		if (strcmp(row->times[i], "-"))
			bad = xmlTextWriterWriteElement(x, BAD_CAST time_names[i],
							BAD_CAST row->times[i]) < 0;
	for (int i = 0; i < 3 && !bad; i++) {
		if (!strcmp(digest[i], "-"))
			continue; /* not hashed (MANIFEST_MAX_HASHED) */
		bad = xmlTextWriterStartElement(x, BAD_CAST "hashdigest") < 0 ||
		      xmlTextWriterWriteAttribute(x, BAD_CAST "type", BAD_CAST types[i]) < 0 ||
		      xmlTextWriterWriteString(x, BAD_CAST digest[i]) < 0 ||
		      xmlTextWriterEndElement(x) < 0;
	}
	if (!bad && !strcmp(row->hashes_of, "ciphertext"))
		bad = xmlTextWriterWriteElement(x, BAD_CAST "e4dump:hashes_of",
						BAD_CAST row->hashes_of) < 0;
	if (!bad && strcmp(row->ct, "-"))
		bad = xmlTextWriterWriteElement(x, BAD_CAST "e4dump:ciphertext_sha256",
						BAD_CAST row->ct) < 0;
	if (!bad && unreadable)
		bad = xmlTextWriterWriteElement(x, BAD_CAST "e4dump:unreadable_blocks",
						BAD_CAST unreadable) < 0;
	free(name);
	return bad || xmlTextWriterEndElement(x) < 0 ? -1 : 0;
}

int manifest_write(struct manifest *m, struct manifest_row *row,
		   const char *hashes, const char *unreadable)
{
	int rc = 0;

	if (!row)
		return -1;
	pthread_mutex_lock(&m->lock);
	if (m->f && fprintf(m->f, "%s\t%" PRIu32 "\t%" PRIu64 "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			    row->path, row->ino, row->size, hashes, row->ct,
			    row->times[0], row->times[1], row->times[2], row->times[3],
			    unreadable ? unreadable : "-", row->hashes_of) < 0)
		m->failed = rc = -1;
	if (m->x && dfxml_row(m->x, row, hashes, unreadable))
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
		hex(d, len, out);
		rc = 0;
	}
	EVP_MD_CTX_free(ctx);
	return rc;
}

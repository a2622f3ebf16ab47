#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <libxml/xmlversion.h>
#include <libxml/xmlwriter.h>
#include <openssl/crypto.h>
#include "bodyfile.h"
#include "context.h"
#include "dfxml.h"
#include "escape.h"
#include "hex.h"
#include "jsonout.h"
#include "modes.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

/* The Sleuth Kit's numbers, as fiwalk writes them: TSK_FS_TYPE_EXT4 for
 * ftype, TSK_FS_META_TYPE_* for meta_type (name_type: the body file's
 * letters, TSK_FS_NAME_TYPE_*). */
#define TSK_FS_TYPE_EXT4 0x2000
static unsigned int tsk_meta_type(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFREG: return 1;
	case E4_S_IFDIR: return 2;
	case E4_S_IFIFO: return 3;
	case E4_S_IFCHR: return 4;
	case E4_S_IFBLK: return 5;
	case E4_S_IFLNK: return 6;
	case E4_S_IFSOCK: return 8;
	default: return 0;
	}
}

struct dfxml {
	xmlTextWriterPtr w;
	int fd;
	unsigned int block_size;
	uint64_t offset;        /* of the volume in the image */
	uint64_t id;            /* of the last fileobject */
	int failed;
};

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

/* <name>text</name>, text made safe by xml_text; nothing for NULL.
 * Failures are remembered in x->failed. */
static void text_el(struct dfxml *x, const char *name, const char *text, int escaped)
{
	char *t;

	if (!text || x->failed)
		return;
	t = xml_text(text, escaped);
	if (!t || xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST t) < 0)
		x->failed = 1;
	free(t);
}

/* An element whose text is ours (numbers, hex, times, fixed words). */
static void el(struct dfxml *x, const char *name, const char *text)
{
	if (!x->failed && xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST text) < 0)
		x->failed = 1;
}

/* v in decimal, in buf (24 bytes) */
static const char *u64(char *buf, uint64_t v)
{
	snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}
#define NUM(v) u64((char[24]){ 0 }, (v))

static void start(struct dfxml *x, const char *name)
{
	if (!x->failed && xmlTextWriterStartElement(x->w, BAD_CAST name) < 0)
		x->failed = 1;
}

static void end(struct dfxml *x)
{
	if (!x->failed && xmlTextWriterEndElement(x->w) < 0)
		x->failed = 1;
}

static void attr(struct dfxml *x, const char *name, const char *value)
{
	if (!x->failed && xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0)
		x->failed = 1;
}

static void library(struct dfxml *x, const char *name, const char *version)
{
	start(x, "library");
	attr(x, "name", name);
	attr(x, "version", version);
	end(x);
}

/* creator: fiwalk's program, version, build and execution environment
 * (this host, the command line, when) and the libraries in use. */
static void creator(struct dfxml *x, int argc, char **argv)
{
	char *cmd = NULL, now[32];
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	struct utsname u;
	time_t t = time(NULL);
	struct tm tm;

	for (int i = 0; f && i < argc; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	if (!f || fclose(f)) {
		x->failed = 1;
		return;
	}
	start(x, "creator");
	el(x, "program", "e4dump");
	el(x, "version", E4DUMP_VERSION);
#ifdef __VERSION__
	start(x, "build_environment");
	el(x, "compiler", "cc " __VERSION__);
	end(x);
#endif
	start(x, "execution_environment");
	if (uname(&u) == 0) {
		text_el(x, "os_sysname", u.sysname, 0);
		text_el(x, "os_release", u.release, 0);
		text_el(x, "os_version", u.version, 0);
		text_el(x, "host", u.nodename, 0);
		text_el(x, "arch", u.machine, 0);
	}
	text_el(x, "command_line", cmd, 0);
	el(x, "uid", NUM(getuid()));
	if (gmtime_r(&t, &tm) && strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm))
		el(x, "start_time", now);
	end(x);
	library(x, "OpenSSL", OpenSSL_version(OPENSSL_VERSION_STRING));
	library(x, "libxml2", LIBXML_DOTTED_VERSION);
	end(x);
	free(cmd);
}

struct dfxml *dfxml_open(int fd, const char *path, const char *image,
			 struct e4_fs *fs, int deleted, int argc, char **argv,
			 struct report *r)
{
	struct dfxml *x = calloc(1, sizeof(*x));
	xmlOutputBufferPtr out = x ? xmlOutputBufferCreateFd(fd, NULL) : NULL;
	struct e4_fs_info fi;

	if (x)
		x->w = out ? xmlNewTextWriter(out) : NULL;
	if (!x || !x->w) {
		if (out)
			xmlOutputBufferClose(out);
		close(fd);
		free(x);
		report_error(r, "--dfxml %s: out of memory", path);
		return NULL;
	}
	/* the buffer does not own fd: closed in dfxml_close */
	x->fd = fd;
	e4_fs_get_info(fs, &fi);
	x->block_size = fi.block_size;
	x->offset = fi.offset;
	if (xmlTextWriterSetIndent(x->w, 1) < 0 ||
	    xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL) < 0)
		x->failed = 1;
	start(x, "dfxml");
	attr(x, "xmlns", DFXML_NS);
	attr(x, "xmlns:dc", "http://purl.org/dc/elements/1.1/");
	attr(x, "xmlns:e4", DFXML_E4_NS);
	attr(x, "version", DFXML_VERSION);
	start(x, "metadata");
	el(x, "dc:type", deleted ? "Recovered deleted files" : "Extracted files");
	end(x);
	creator(x, argc, argv);
	/* the source's size and container have no DFXML element: attributes
	 * of e4dump's namespace */
	start(x, "source");
	attr(x, "e4:image_size", NUM(fi.image_size));
	attr(x, "e4:container", fi.container);
	text_el(x, "image_filename", image, 0);
	end(x);
	/* the volume as fiwalk gives it; the fileobjects inside it */
	start(x, "volume");
	attr(x, "offset", NUM(fi.offset));
	el(x, "partition_offset", NUM(fi.offset));
	el(x, "block_size", NUM(fi.block_size));
	el(x, "ftype", NUM(TSK_FS_TYPE_EXT4));
	el(x, "ftype_str", "ext4");
	if (fi.blocks_count >= 2) { /* block_count, last_block: positive */
		el(x, "block_count", NUM(fi.blocks_count));
		el(x, "first_block", "0");
		el(x, "last_block", NUM(fi.blocks_count - 1));
	}
	el(x, "allocated_only", deleted ? "0" : "1");
	if (x->failed)
		report_error(r, "--dfxml %s: write failed", path);
	return x;
}

/* The e4:encryption element: the record's encryption facts, named as
 * its JSON names them. */
static void encryption(struct dfxml *x, const struct record_encryption *e)
{
	const struct e4_context *c = &e->ctx;
	char flags[E4_FLAGS_NAME_MAX], hex[2 * sizeof(c->key_id) + 1];

	start(x, "e4:encryption");
	if (e->error) {
		el(x, "e4:error", e->error);
	} else if (!e->readable) {
		el(x, "e4:policy_version", NUM(c->version));
		el(x, "e4:error", e->unknown_why ? e->unknown_why : "unknown version");
	} else {
		el(x, "e4:policy_version", NUM(c->version));
		el(x, "e4:contents_mode", NUM(c->contents_mode));
		el(x, "e4:contents", e4_mode_name(c->contents_mode));
		el(x, "e4:filenames_mode", NUM(c->filenames_mode));
		el(x, "e4:filenames", e4_mode_name(c->filenames_mode));
		/* the names, space-separated (an XML list) */
		e4_policy_flags_name(c->flags, flags);
		for (char *f = flags; *f; f++)
			if (*f == '|')
				*f = ' ';
		el(x, "e4:flags", flags);
		e4_hex_encode(c->key_id, c->key_id_size > sizeof(c->key_id) ?
			      sizeof(c->key_id) : c->key_id_size, hex);
		el(x, c->version == E4_CONTEXT_V1 ? "e4:descriptor" : "e4:identifier", hex);
		e4_hex_encode(c->nonce, sizeof(c->nonce), hex);
		el(x, "e4:nonce", hex);
		text_el(x, "e4:key", e->key, 0);
		el(x, "e4:state", e->open ? "decrypted" : "locked");
	}
	end(x);
}

static void byte_runs(struct dfxml *x, const struct record *r)
{
	if (!r->have_runs || !r->nruns)
		return;
	start(x, "byte_runs");
	for (size_t i = 0; i < r->nruns && !x->failed; i++) {
		start(x, "byte_run");
		attr(x, "file_offset", NUM(r->runs[i].file_offset));
		attr(x, "fs_offset", NUM(r->runs[i].fs_offset));
		attr(x, "img_offset", NUM(r->runs[i].img_offset));
		attr(x, "len", NUM(r->runs[i].len));
		end(x);
	}
	end(x);
}

/* A hashdigest; of a file only partly read (status partial), the same as
 * e4:partial_hashdigest: a DFXML reader takes hashdigest for the file's
 * hash, and this is only of what was written (unreadable blocks as
 * zeros). */
static void hashdigest(struct dfxml *x, const struct record_hashes *h, const char *type,
		       const char *digest, int partial)
{
	if (!*digest || x->failed)
		return; /* not hashed (MANIFEST_MAX_HASHED) */
	start(x, partial ? "e4:partial_hashdigest" : "hashdigest");
	attr(x, "type", type);
	if (!strcmp(h->of, "ciphertext"))
		attr(x, "e4:of", h->of); /* --keep-locked */
	if (!x->failed && xmlTextWriterWriteString(x->w, BAD_CAST digest) < 0)
		x->failed = 1;
	end(x);
}

/* A time element, none for a time without a date */
static void time_el(struct dfxml *x, const char *name, const struct e4_timestamp *ts)
{
	char t[JSON_TIME_MAX];

	if (!json_time_text(ts, t))
		el(x, name, t);
}

int dfxml_fileobject(struct dfxml *x, const struct record *r)
{
	const struct e4_inode *in = &r->inode;
	char type[2] = { 0, 0 }, *hex;

	if (x->failed)
		return -1;
	/* TSK's letter: the inode's type, else the entry's */
	type[0] = r->have_inode ? bodyfile_mode_letter(in->mode) :
		  bodyfile_ft_letter(r->name_type);
	start(x, "fileobject");
	text_el(x, "filename", r->path, 1);
	el(x, "id", NUM(++x->id));
	el(x, "name_type", type);
	if (r->have_inode)
		el(x, "filesize", NUM(r->size));
	/* a deleted name, or an inode its bitmap says is free (one asked
	 * for by number): unallocated, as DFXML 1.1.1 marks it */
	el(x, r->deleted || r->allocated == 0 ? "unalloc" : "alloc", "1");
	if (r->orphan)
		el(x, "orphan", "1");
	el(x, "inode", NUM(r->ino));
	if (r->have_inode) {
		el(x, "meta_type", NUM(tsk_meta_type(in->mode)));
		el(x, "mode", NUM(in->mode & 07777));
		el(x, "nlink", NUM(in->links));
		el(x, "uid", NUM(in->uid));
		el(x, "gid", NUM(in->gid));
		/* the schema's order */
		time_el(x, "mtime", &in->mtime);
		time_el(x, "ctime", &in->ctime);
		time_el(x, "atime", &in->atime);
		if (in->has_crtime)
			time_el(x, "crtime", &in->crtime);
		if (in->dtime)
			time_el(x, "dtime", &RECORD_DTIME(in));
	}
	text_el(x, "link_target", r->target, 1);
	byte_runs(x, r);
	if (r->hashes.of && !record_hashes_partial(r)) {
		hashdigest(x, &r->hashes, "md5", r->hashes.md5, 0);
		hashdigest(x, &r->hashes, "sha1", r->hashes.sha1, 0);
		hashdigest(x, &r->hashes, "sha256", r->hashes.sha256, 0);
	}
	/* e4dump's own elements, after the schema's */
	if (r->have_name) {
		el(x, "e4:name_state", json_name_state(r->name_state));
		if (r->raw_name_len) {
			if (!(hex = malloc(2 * r->raw_name_len + 1))) {
				x->failed = 1;
				return -1;
			}
			e4_hex_encode(r->raw_name, r->raw_name_len, hex);
			el(x, "e4:raw_name_hex", hex);
			free(hex);
		}
	}
	if (r->have_inode && r->enc.present)
		encryption(x, &r->enc);
	if (r->xattrs_error)
		el(x, "e4:xattrs_error", r->xattrs_error);
	if (r->hashes.of && record_hashes_partial(r)) {
		hashdigest(x, &r->hashes, "md5", r->hashes.md5, 1);
		hashdigest(x, &r->hashes, "sha1", r->hashes.sha1, 1);
		hashdigest(x, &r->hashes, "sha256", r->hashes.sha256, 1);
	}
	if (r->hashes.ciphertext_sha256[0])
		el(x, "e4:ciphertext_sha256", r->hashes.ciphertext_sha256);
	if (r->unreadable)
		el(x, "e4:unreadable_blocks", r->unreadable);
	text_el(x, "e4:output_path", r->output_path, 1);
	if (r->status)
		el(x, "e4:status", r->status);
	end(x);
	return x->failed ? -1 : 0;
}

int dfxml_close(struct dfxml *x)
{
	int bad;

	if (!x)
		return 0;
	end(x); /* volume */
	bad = x->failed || xmlTextWriterEndDocument(x->w) < 0 ||
	      xmlTextWriterFlush(x->w) < 0;
	xmlFreeTextWriter(x->w);
	if (close(x->fd))
		bad = 1;
	free(x);
	return bad ? -1 : 0;
}

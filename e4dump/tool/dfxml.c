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
#include "context.h"
#include "dfxml.h"
#include "escape.h"
#include "modes.h"

#ifndef E4DUMP_VERSION
#define E4DUMP_VERSION "0"
#endif

/* The Sleuth Kit's numbers, as fiwalk writes them: TSK_FS_TYPE_EXT4 for
 * ftype, TSK_FS_META_TYPE_* for meta_type, TSK_FS_NAME_TYPE_* letters
 * for name_type. */
#define TSK_FS_TYPE_EXT4 0x2000
static const struct {
	int meta_type;
	const char *name_type;
} tsk_type[] = {
	[MANIFEST_FILE] = { 1, "r" },
	[MANIFEST_DIR] = { 2, "d" },
	[MANIFEST_SYMLINK] = { 6, "l" },
};

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
			 struct e4_fs *fs, int argc, char **argv,
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
	el(x, "dc:type", "Extracted files");
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
	el(x, "allocated_only", "1");
	if (x->failed)
		report_error(r, "--dfxml %s: write failed", path);
	return x;
}

/* The e4:encryption element: the context's facts as the JSON records
 * name them. */
static void encryption(struct dfxml *x, const struct manifest_policy *p)
{
	char flags[E4_FLAGS_NAME_MAX];

	start(x, "e4:encryption");
	if (p->version)
		el(x, "e4:policy_version", NUM(p->version));
	if (p->error[0])
		el(x, "e4:error", p->error);
	if (p->known) {
		el(x, "e4:contents_mode", NUM(p->contents_mode));
		el(x, "e4:contents", e4_mode_name(p->contents_mode));
		el(x, "e4:filenames_mode", NUM(p->filenames_mode));
		el(x, "e4:filenames", e4_mode_name(p->filenames_mode));
		/* the names, space-separated (an XML list) */
		e4_policy_flags_name(p->flags, flags);
		for (char *c = flags; *c; c++)
			if (*c == '|')
				*c = ' ';
		el(x, "e4:flags", flags);
		el(x, p->v2 ? "e4:identifier" : "e4:descriptor", p->key_id);
		el(x, "e4:nonce", p->nonce);
		text_el(x, "e4:key", p->key, 1);
		el(x, "e4:state", p->locked ? "locked" : "decrypted");
	}
	end(x);
}

/* byte_runs: where the inode's bytes are, as fiwalk gives them (the last
 * run cut at i_size; holes and unwritten extents have none). */
static void byte_runs(struct dfxml *x, const struct manifest_row *row)
{
	uint64_t bs = x->block_size;

	if (!row->nruns)
		return;
	start(x, "byte_runs");
	for (size_t i = 0; i < row->nruns && !x->failed; i++) {
		const struct e4_run *r = &row->runs[i];
		uint64_t off = r->lblk * bs, len = r->len * bs;

		if (off >= row->size)
			break;
		if (len > row->size - off)
			len = row->size - off;
		start(x, "byte_run");
		attr(x, "file_offset", NUM(off));
		attr(x, "fs_offset", NUM(r->pblk * bs));
		attr(x, "img_offset", NUM(x->offset + r->pblk * bs));
		attr(x, "len", NUM(len));
		end(x);
	}
	end(x);
}

int dfxml_fileobject(struct dfxml *x, const struct manifest_row *row,
		     const char *hashes, const char *unreadable)
{
	static const char *const types[3] = { "md5", "sha1", "sha256" };
	/* the schema's order: mtime, ctime, atime, crtime (times[]: atime,
	 * mtime, ctime, crtime) */
	static const struct { const char *name; int i; } times[4] = {
		{ "mtime", 1 }, { "ctime", 2 }, { "atime", 0 }, { "crtime", 3 },
	};
	char digest[3][129];
	int kind = row->described ? row->kind : MANIFEST_FILE;

	if (x->failed)
		return -1;
	if (sscanf(hashes, "%128[^\t]\t%128[^\t]\t%128s", digest[0], digest[1], digest[2]) != 3)
		return -1;
	start(x, "fileobject");
	text_el(x, "filename", row->path, 1);
	el(x, "id", NUM(++x->id));
	el(x, "name_type", tsk_type[kind].name_type);
	el(x, "filesize", NUM(row->described ? row->shown_size : row->size));
	el(x, "alloc", "1");
	el(x, "inode", NUM(row->ino));
	if (row->described) {
		el(x, "meta_type", NUM((uint64_t)tsk_type[kind].meta_type));
		el(x, "mode", NUM(row->mode & 07777));
		el(x, "nlink", NUM(row->links));
		el(x, "uid", NUM(row->uid));
		el(x, "gid", NUM(row->gid));
	}
	for (int i = 0; i < 4; i++)
		if (strcmp(row->times[times[i].i], "-"))
			el(x, times[i].name, row->times[times[i].i]);
	if (row->described && strcmp(row->dtime, "-"))
		el(x, "dtime", row->dtime);
	text_el(x, "link_target", row->target, 1);
	byte_runs(x, row);
	for (int i = 0; i < 3 && !x->failed; i++) {
		if (!strcmp(digest[i], "-"))
			continue; /* not hashed (MANIFEST_MAX_HASHED) */
		start(x, "hashdigest");
		attr(x, "type", types[i]);
		if (row->enc.locked)
			attr(x, "e4:of", "ciphertext"); /* --keep-locked */
		if (!x->failed && xmlTextWriterWriteString(x->w, BAD_CAST digest[i]) < 0)
			x->failed = 1;
		end(x);
	}
	/* e4dump's own elements, after the schema's */
	if (row->name_state)
		el(x, "e4:name_state", row->name_state);
	if (row->raw_name_hex)
		el(x, "e4:raw_name_hex", row->raw_name_hex);
	if (row->enc.encrypted)
		encryption(x, &row->enc);
	if (strcmp(row->ct, "-"))
		el(x, "e4:ciphertext_sha256", row->ct);
	if (unreadable)
		el(x, "e4:unreadable_blocks", unreadable);
	text_el(x, "e4:output_path", row->out_path, 1);
	el(x, "e4:status", unreadable ? "partial" : row->enc.locked ? "locked" : "complete");
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

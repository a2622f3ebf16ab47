/* extract --keep-locked's export (kept.h). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "blockmap.h"
#include "context.h"
#include "fs.h"
#include "jsonout.h"
#include "kept.h"
#include "modes.h"

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

long kept_unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v = 0;

		for (int k = 0; k < 2; k++) {
			char c = hex[2 * i + k];

			v <<= 4;
			if (c >= '0' && c <= '9')
				v |= (unsigned int)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v |= (unsigned int)(c - 'a' + 10);
			else
				return -1;
		}
		out[i] = (uint8_t)v;
	}
	return (long)(n / 2);
}

static json_object *time_pair(const struct e4_timestamp *t)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_int64(t->sec));
	json_object_array_add(a, json_object_new_int64(t->nsec));
	return a;
}

/* The machine fields of decrypt_later: one table for both directions. */
enum later_kind { L_U16, L_U32, L_U64 };
static const struct {
	const char *key;
	size_t off;
	enum later_kind kind;
} later_fields[] = {
	{ "inode", offsetof(struct e4_inode, ino), L_U32 },
	{ "i_mode", offsetof(struct e4_inode, mode), L_U16 },
	{ "uid", offsetof(struct e4_inode, uid), L_U32 },
	{ "gid", offsetof(struct e4_inode, gid), L_U32 },
	{ "links", offsetof(struct e4_inode, links), L_U16 },
	{ "i_flags", offsetof(struct e4_inode, flags), L_U32 },
	{ "i_size", offsetof(struct e4_inode, size), L_U64 },
};
#define N_LATER (sizeof(later_fields) / sizeof(later_fields[0]))
static const char *const later_times[4] = { "atime", "mtime", "ctime", "crtime" };

static struct e4_timestamp *inode_time(struct e4_inode *in, int i)
{
	struct e4_timestamp *ts[4] = { &in->atime, &in->mtime, &in->ctime, &in->crtime };

	return ts[i];
}

json_object *kept_later_json_runs(const struct record *r, struct e4_fs *fs,
				  const struct e4_run *runs, size_t nruns)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();
	struct e4_inode in = r->inode;
	uint8_t raw[E4_CONTEXT_MAX_SIZE];
	size_t n = 0;

	in.ino = r->ino;
	for (size_t i = 0; i < N_LATER; i++) {
		const unsigned char *p = (const unsigned char *)&in + later_fields[i].off;
		uint64_t v = later_fields[i].kind == L_U16 ? *(const uint16_t *)(const void *)p :
			     later_fields[i].kind == L_U32 ? *(const uint32_t *)(const void *)p :
			     *(const uint64_t *)(const void *)p;

		ADD(o, later_fields[i].key, json_object_new_uint64(v));
	}
	for (int i = 0; i < 4; i++)
		ADD(t, later_times[i], i < 3 || in.has_crtime ? time_pair(inode_time(&in, i)) : NULL);
	ADD(o, "times", t);
	/* the record's context, read once (record.c) */
	if (r->enc.present && !r->enc.error && r->enc.known)
		n = e4_context_encode(&r->enc.ctx, raw);
	ADD(o, "context_hex", n ? json_hex(raw, n) : NULL);
	if (fs && E4_ISREG(in.mode)) {
		/* the initialized data units below i_size */
		uint64_t end = e4_inode_size_blocks(fs, &r->inode);
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < nruns; i++) {
			json_object *run;

			if (runs[i].unwritten || runs[i].lblk >= end || !runs[i].len)
				continue;
			run = json_object_new_array();
			json_object_array_add(run, json_object_new_uint64(runs[i].lblk));
			json_object_array_add(run, json_object_new_uint64(
						      runs[i].len < end - runs[i].lblk ?
						      runs[i].len : end - runs[i].lblk));
			json_object_array_add(a, run);
		}
		ADD(o, "data_units", a);
	}
	return o;
}

json_object *kept_later_json(const struct record *r, struct e4_fs *fs)
{
	struct e4_run *runs = NULL;
	size_t nruns = 0;
	json_object *o;

	if (fs && E4_ISREG(r->inode.mode) &&
	    e4_inode_runs(fs, &r->inode, r->path, e4_inode_size_blocks(fs, &r->inode),
			  &runs, &nruns) != E4_OK) {
		free(runs);
		return NULL;
	}
	o = kept_later_json_runs(r, fs, runs, nruns);
	free(runs);
	return o;
}

static json_object *field(json_object *o, const char *k, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

void kept_later_inode(json_object *later, struct e4_inode *in)
{
	json_object *t = field(later, "times", json_type_object);

	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < N_LATER; i++) {
		json_object *v = field(later, later_fields[i].key, json_type_int);
		unsigned char *p = (unsigned char *)in + later_fields[i].off;
		uint64_t x = v ? (uint64_t)json_object_get_int64(v) : 0;

		if (later_fields[i].kind == L_U16)
			*(uint16_t *)(void *)p = (uint16_t)x;
		else if (later_fields[i].kind == L_U32)
			*(uint32_t *)(void *)p = (uint32_t)x;
		else
			*(uint64_t *)(void *)p = x;
	}
	in->encrypted = (in->flags & E4_INODE_ENCRYPT_FL) != 0;
	for (int i = 0; i < 4; i++) {
		json_object *a = field(t, later_times[i], json_type_array);
		struct e4_timestamp *ts = inode_time(in, i);
		int64_t ns;

		if (!a || json_object_array_length(a) != 2)
			continue;
		ts->sec = json_object_get_int64(json_object_array_get_idx(a, 0));
		ns = json_object_get_int64(json_object_array_get_idx(a, 1));
		ts->nsec = ns >= 0 && ns < 1000000000 ? (uint32_t)ns : 0;
		in->has_crtime |= i == 3;
	}
}

int kept_later_context(json_object *later, struct e4_context *ctx, uint32_t *ino)
{
	uint8_t raw[E4_CONTEXT_MAX_SIZE];
	json_object *h = field(later, "context_hex", json_type_string);
	json_object *i = field(later, "inode", json_type_int);
	long n = h ? kept_unhex(json_object_get_string(h), raw, sizeof(raw)) : -1;
	int64_t v = i ? json_object_get_int64(i) : -1;

	if (n <= 0 || v <= 0 || v > UINT32_MAX ||
	    e4_context_parse(ctx, raw, (size_t)n) != E4_OK)
		return -1;
	*ino = (uint32_t)v;
	return 0;
}

int kept_sidecar_name(struct nameset *names, const char *name, uint32_t ino,
		      char side[OUTDIR_NAME_MAX + 32])
{
	snprintf(side, OUTDIR_NAME_MAX + 32, "%s.e4dump.json", name);
	if (strlen(side) < OUTDIR_NAME_MAX && (!names || nameset_add(names, side) == 1))
		return 0;
	snprintf(side, OUTDIR_NAME_MAX + 32, "%%~%" PRIu32 ".e4dump.json", ino);
	return !names || nameset_add(names, side) == 1 ? 0 : -1;
}

int kept_sidecar_write(struct outdir *od, int dirfd, const char *side,
		       const char *name, json_object *o, json_object *later,
		       unsigned int block_size)
{
	ADD(o, "ciphertext_file", json_name(name));
	ADD(o, "block_size", json_object_new_int64(block_size));
	ADD(o, "decrypt_later", json_object_get(later));
	return kept_write_json(od, dirfd, side, o);
}

json_object *kept_export_json(struct e4_fs *fs, const char *image,
			      const char *path)
{
	json_object *o = json_object_new_object();
	struct e4_fs_info fi;

	e4_fs_get_info(fs, &fi);
	ADD(o, "type", json_object_new_string("export"));
	ADD(o, "format", json_object_new_int(KEPT_FORMAT));
	ADD(o, "image", json_name(image));
	ADD(o, "path", json_name(path));
	ADD(o, "fs_uuid", json_hex(fi.uuid, sizeof(fi.uuid)));
	ADD(o, "block_size", json_object_new_int64(fi.block_size));
	ADD(o, "name_format", json_object_new_string(
		    e4_fs_name_format(fs) == E4_FORMAT_2015 ? "2015" : "6.1"));
	ADD(o, "encrypt_pw_salt", json_hex(fi.encrypt_pw_salt,
					    sizeof(fi.encrypt_pw_salt)));
	return o;
}

int kept_write_json(struct outdir *od, int dirfd, const char *name,
		    json_object *o)
{
	struct out_file f;
	const char *text;
	size_t len;

	json_well_formed(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (outdir_file_open(od, dirfd, name, 0644, &f))
		return -1;
	if (write(f.fd, text, len) != (ssize_t)len || write(f.fd, "\n", 1) != 1) {
		if (!errno)
			errno = EIO;
		outdir_file_abort(&f);
		return -1;
	}
	return outdir_file_commit(od, &f);
}

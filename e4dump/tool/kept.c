/* extract --keep-locked's export (kept.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "blockmap.h"
#include "context.h"
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

json_object *kept_hashes_json(const char *of, const char *hashes)
{
	char d[3][129];
	json_object *o;

	if (sscanf(hashes, "%128[^\t]\t%128[^\t]\t%128s", d[0], d[1], d[2]) != 3 ||
	    !strcmp(d[0], "-"))
		return NULL;
	o = json_object_new_object();
	ADD(o, "of", json_object_new_string(of));
	ADD(o, "md5", json_object_new_string(d[0]));
	ADD(o, "sha1", json_object_new_string(d[1]));
	ADD(o, "sha256", json_object_new_string(d[2]));
	return o;
}

static json_object *time_pair(const struct e4_timestamp *t)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_int64(t->sec));
	json_object_array_add(a, json_object_new_int64(t->nsec));
	return a;
}

json_object *kept_inode_json(struct e4_fs *fs, const struct e4_inode *in,
			     const char *path)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();
	uint8_t raw[E4_CONTEXT_MAX_SIZE];
	struct e4_context ctx;
	const char *why;
	size_t n;

	ADD(o, "inode", json_object_new_int64(in->ino));
	ADD(o, "i_mode", json_object_new_int64(in->mode));
	ADD(o, "uid", json_object_new_int64(in->uid));
	ADD(o, "gid", json_object_new_int64(in->gid));
	ADD(o, "links", json_object_new_int64(in->links));
	ADD(o, "i_flags", json_object_new_int64(in->flags));
	ADD(o, "i_size", json_object_new_uint64(in->size));
	ADD(t, "atime", time_pair(&in->atime));
	ADD(t, "mtime", time_pair(&in->mtime));
	ADD(t, "ctime", time_pair(&in->ctime));
	ADD(t, "crtime", in->has_crtime ? time_pair(&in->crtime) : NULL);
	ADD(o, "times", t);
	n = 0;
	if (in->encrypted && e4_inode_context(fs, in, &ctx, &why) == E4_OK)
		n = e4_context_encode(&ctx, raw);
	ADD(o, "context_hex", n ? json_hex(raw, n) : NULL);
	if (E4_ISREG(in->mode)) {
		struct e4_run *runs = NULL;
		size_t nruns = 0;
		json_object *a;

		if (e4_inode_runs(fs, in, path, e4_inode_size_blocks(fs, in), &runs,
				  &nruns) != E4_OK) {
			free(runs);
			json_object_put(o);
			return NULL;
		}
		a = json_object_new_array();
		for (size_t i = 0; i < nruns; i++) {
			json_object *r = json_object_new_array();

			json_object_array_add(r, json_object_new_uint64(runs[i].lblk));
			json_object_array_add(r, json_object_new_uint64(runs[i].len));
			json_object_array_add(a, r);
		}
		free(runs);
		ADD(o, "data_units", a);
	}
	return o;
}

json_object *kept_encryption_json(const struct e4_context *c)
{
	json_object *o = json_object_new_object(), *fl = json_object_new_array();
	char names[E4_FLAGS_NAME_MAX];

	e4_policy_flags_name(c->flags, names);
	for (char *save = NULL, *t = strtok_r(names, "|", &save); t; t = strtok_r(NULL, "|", &save))
		json_object_array_add(fl, json_object_new_string(t));
	ADD(o, "policy_version", json_object_new_int(c->version));
	ADD(o, "contents_mode", json_object_new_int(c->contents_mode));
	ADD(o, "contents", json_object_new_string(e4_mode_name(c->contents_mode)));
	ADD(o, "filenames_mode", json_object_new_int(c->filenames_mode));
	ADD(o, "filenames", json_object_new_string(e4_mode_name(c->filenames_mode)));
	ADD(o, "flags", fl);
	ADD(o, c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
	    json_hex(c->key_id, c->key_id_size));
	ADD(o, "nonce", json_hex(c->nonce, sizeof(c->nonce)));
	ADD(o, "key", NULL);
	ADD(o, "state", json_object_new_string("locked"));
	return o;
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

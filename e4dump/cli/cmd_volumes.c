/* e4dump volumes: what a disk image holds, in the manner of mmls: the
 * container and what its acquisition recorded, the partition table, and
 * for each partition where it is, what filesystem libblkid finds there
 * and, for ext4, whether it has encrypted inodes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "container.h"
#include "escape.h"
#include "fs.h"
#include "jsonout.h"
#include "session.h"
#include "volume.h"

/* ext volumes whose inodes are scanned: a hostile table may list the
 * same large filesystem a thousand times. */
#define MAX_SCANNED 64

/* A warning that the image holds less than something in it declares
 * (the problem short_image, as the library reports it when a command
 * opens the filesystem), about image. */
static void warn_short(struct report *r, const char *image, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_short(struct report *r, const char *image, const char *fmt, ...)
{
	struct e4_diag d = { .level = E4_DIAG_WARNING, .status = E4_OK,
			     .problem = E4_P_SHORT, .path = image };
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	d.message = msg ? msg : "out of memory";
	report_diag(r, &d);
	free(msg);
}

/* The encrypted inodes of the ext volume at [start, start + size) of
 * disk, or -1 when it cannot be read; what of the filesystem its
 * superblock declares lies past the end of the image is a warning (what
 * names the volume). */
static long count_encrypted(struct e4_source *disk, uint64_t start, uint64_t size,
			    struct report *r, const char *image, const char *what)
{
	struct e4_fs_info info;
	char shortfall[400];
	struct e4_fs_options fo = { .listing = 1 };
	struct e4_source *view;
	struct e4_fs *fs;
	const struct e4_enc_inode *v;
	size_t n;
	long flagged = 0;

	if (e4_source_view(disk, start, size, &view) != E4_OK ||
	    e4_fs_open_source(&fs, view, &fo) != E4_OK)
		return -1;
	e4_fs_get_info(fs, &info);
	if (e4_fs_shortfall(&info, shortfall, sizeof(shortfall)))
		warn_short(r, image, "%s%s%s", what, what[0] ? ": " : "", shortfall);
	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) != E4_OK)
		flagged = -1;
	else
		for (size_t i = 0; i < n; i++)
			flagged += v[i].flagged != 0;
	e4_fs_close(fs);
	return flagged;
}

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

/* One volume as a record; enc: encrypted inodes, -1 unreadable, -2 not
 * scanned, -3 not ext. */
static json_object *volume_record(const char *index, uint64_t start, uint64_t size,
				  const char *fs, long enc, const char *type,
				  const char *name, const struct e4_volume *v)
{
	json_object *o = json_record("volume");

	ADD(o, "index", index ? json_object_new_string(index) : NULL);
	ADD(o, "start", json_object_new_uint64(start));
	ADD(o, "start_sector", json_object_new_uint64(start / 512));
	ADD(o, "length", json_object_new_uint64(size));
	ADD(o, "filesystem", fs[0] ? json_object_new_string(fs) : NULL);
	ADD(o, "ext4", json_object_new_boolean(enc != -3));
	ADD(o, "encrypted_inodes", enc >= 0 ? json_object_new_int64(enc) : NULL);
	if (enc == -1 || enc == -2)
		ADD(o, "note", json_object_new_string(enc == -1 ? "unreadable" : "not scanned"));
	ADD(o, "partition_type", json_object_new_string(type));
	ADD(o, "name", name[0] ? json_object_new_string(name) : NULL);
	ADD(o, "extended", json_object_new_boolean(v && v->extended));
	ADD(o, "logical", json_object_new_boolean(v && v->logical));
	ADD(o, "missing", json_object_new_uint64(v ? v->missing : 0));
	/* where the table puts it, in its own words and sectors (no last
	 * sector for an entry of zero length) */
	ADD(o, "slot", v ? json_object_new_string(v->slot) : NULL);
	ADD(o, "table_first", v ? json_object_new_uint64(v->first) : NULL);
	ADD(o, "table_last", v && !(v->odd & E4_VOL_BACKWARDS && v->last == v->first) ?
	    json_object_new_uint64(v->last) : NULL);
	ADD(o, "odd", v && v->why_odd[0] ? json_object_new_string(v->why_odd) : NULL);
	return o;
}

static char *escaped(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *e = malloc(E4_ESCAPE_SIZE(n));

	if (e)
		e4_escape((const uint8_t *)s, n, e, 0);
	return e;
}

static void print_row(json_object *o)
{
	json_object *v;
	char enc[48] = "-";

	if (json_object_object_get_ex(o, "encrypted_inodes", &v) && v) {
		int64_t n = json_object_get_int64(v);

		if (n)
			snprintf(enc, sizeof(enc), "yes (%lld inodes)", (long long)n);
		else
			snprintf(enc, sizeof(enc), "no");
	} else if (json_object_object_get_ex(o, "note", &v) && v) {
		snprintf(enc, sizeof(enc), "%s", json_object_get_string(v));
	}
	json_object_object_get_ex(o, "index", &v);
	printf("%-6s", v ? json_object_get_string(v) : "-");
	json_object_object_get_ex(o, "start", &v);
	printf(" %14s", json_object_get_string(v));
	json_object_object_get_ex(o, "start_sector", &v);
	printf(" %14s", json_object_get_string(v));
	json_object_object_get_ex(o, "length", &v);
	printf(" %14s", json_object_get_string(v));
	json_object_object_get_ex(o, "filesystem", &v);
	printf("  %-12s %-18s", v ? json_object_get_string(v) : "-", enc);
	json_object_object_get_ex(o, "partition_type", &v);
	printf(" %-36s", json_object_get_string(v));
	json_object_object_get_ex(o, "name", &v);
	printf(" %s\n", v ? json_object_get_string(v) : "-");
}

int cmd_volumes(const struct options *o, struct report *r)
{
	const char *path = o->args[0];
	struct e4_source *disk;
	struct e4_volume_table t;
	json_object *container, *table, *meta, *rows;
	char why[1024], *e, *name;
	enum e4_status st;
	int rc;

	st = e4_source_open_any(path, &disk, why, sizeof(why));
	if (st != E4_OK) {
		report_error(r, "%s: cannot open: %s", path, why);
		if (o->json)
			json_emit(json_summary("volumes", r, EXIT_FATAL));
		return finish_stdout(EXIT_FATAL, r);
	}
	st = e4_volumes_read(disk, &t, why, sizeof(why));
	if (st != E4_OK) {
		report_error(r, "%s: cannot read its partition table: %s", path, why);
		e4_source_close(disk);
		if (o->json)
			json_emit(json_summary("volumes", r, EXIT_FATAL));
		return finish_stdout(EXIT_FATAL, r);
	}
	/* the records; the text is printed from them */
	container = json_record("container");
	e = escaped(path, 4096);
	ADD(container, "image", json_object_new_string(e ? e : "?"));
	free(e);
	ADD(container, "kind", json_object_new_string(disk->kind));
	ADD(container, "size", json_object_new_uint64(disk->size));
	meta = json_object_new_object();
	for (size_t i = 0; i < disk->n_meta; i++) {
		char *k = escaped(disk->meta[i].key, 64), *v = escaped(disk->meta[i].value, 1u << 20);

		if (k && v)
			ADD(meta, k, json_object_new_string(v));
		free(k);
		free(v);
	}
	ADD(container, "acquisition", meta);
	table = json_record("table");
	ADD(table, "scheme", t.scheme[0] ? json_object_new_string(t.scheme) : NULL);
	ADD(table, "id", t.id[0] ? json_object_new_string(t.id) : NULL);
	ADD(table, "sector_size", t.scheme[0] ? json_object_new_int(t.sector_size) : NULL);
	ADD(table, "note", t.note[0] ? json_object_new_string(t.note) : NULL);
	rows = json_object_new_array();
	e = escaped(path, 4096);
	if (e4_volumes_shortfall(&t, why, sizeof(why)))
		warn_short(r, e ? e : "?", "%s", why);
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].missing && t.v[i].size)
			warn_short(r, e ? e : "?", "partition %u: %llu bytes of it lie past the end of the image",
				   t.v[i].index, (unsigned long long)t.v[i].missing);
	if (e4_has_ext_superblock(disk, 0))
		json_object_array_add(rows, volume_record(NULL, 0, disk->size, "ext4",
			count_encrypted(disk, 0, disk->size, r, e ? e : "?", ""),
			t.n ? "(whole image; overlaps the table)" : "(whole image)", "", NULL));
	for (size_t i = 0, scanned = 0; i < t.n; i++) {
		const struct e4_volume *v = &t.v[i];
		char index[16], type[96];
		long enc = -3;

		snprintf(index, sizeof(index), "%u", v->index);
		if (v->ext) {
			char what[32];

			snprintf(what, sizeof(what), "partition %u", v->index);
			enc = scanned++ < MAX_SCANNED ?
			      count_encrypted(disk, v->start, v->size, r, e ? e : "?", what) : -2;
		}
		snprintf(type, sizeof(type), "%s%s%s%s", v->type,
			 v->extended ? " (extended)" : v->logical ? " (logical)" : "",
			 v->missing && v->size ? " (cut short)" : "",
			 v->odd & E4_VOL_BLOCKING ? " (odd)" : "");
		name = escaped(v->name, sizeof(v->name));
		json_object_array_add(rows, volume_record(index, v->start, v->size,
			v->extended ? "" : v->fs, enc, type, name ? name : "", v));
		free(name);
	}
	free(e);
	rc = EXIT_DONE;
	if (o->json) {
		json_emit(container);
		json_emit(table);
		for (size_t i = 0; i < json_object_array_length(rows); i++)
			json_emit(json_object_get(json_object_array_get_idx(rows, i)));
		json_emit(json_summary("volumes", r, rc));
	} else {
		printf("image: %s\ncontainer: %s\n", json_object_get_string(
			       json_object_object_get(container, "image")), disk->kind);
		json_object_object_foreach(meta, k, val)
			printf("  %s: %s\n", k, json_object_get_string(val));
		printf("size: %llu bytes (%llu sectors of 512)\n",
		       (unsigned long long)disk->size, (unsigned long long)(disk->size / 512));
		if (t.scheme[0])
			printf("partition table: %s (sector size %u, id %s)\n", t.scheme,
			       t.sector_size, t.id[0] ? t.id : "-");
		else
			printf("partition table: none\n");
		printf("%-6s %14s %14s %14s  %-12s %-18s %-36s %s\n", "index",
		       "start(bytes)", "start(sector)", "length(bytes)", "filesystem",
		       "encrypted", "type", "name");
		for (size_t i = 0; i < json_object_array_length(rows); i++)
			print_row(json_object_array_get_idx(rows, i));
		for (size_t i = 0; i < t.n; i++) {
			if (t.v[i].missing && t.v[i].size)
				printf("partition %u: %llu bytes of it lie past the end of the image\n",
				       t.v[i].index, (unsigned long long)t.v[i].missing);
			if (t.v[i].why_odd[0])
				printf("partition %u (slot %s): odd: %s%s\n", t.v[i].index,
				       t.v[i].slot, t.v[i].why_odd,
				       t.v[i].odd & E4_VOL_BLOCKING ?
				       " (used only when chosen with --partition)" : "");
		}
		if (t.note[0])
			printf("note: %s\n", t.note);
		json_object_put(container);
		json_object_put(table);
	}
	json_object_put(rows);
	e4_volumes_free(&t);
	e4_source_close(disk);
	return finish_stdout(rc, r);
}

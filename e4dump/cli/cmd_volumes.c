/* e4dump volumes: what a disk image holds, in the manner of mmls: the
 * container and what its acquisition recorded, the partition table, and
 * for each partition where it is, what filesystem libblkid finds there
 * and, for ext4, whether it has encrypted inodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "container.h"
#include "escape.h"
#include "fs.h"
#include "session.h"
#include "volume.h"

/* ext volumes whose inodes are scanned: a hostile table may list the
 * same large filesystem a thousand times. */
#define MAX_SCANNED 64

/* Print bytes from the image, escaped. */
static void put_escaped(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *e = malloc(E4_ESCAPE_SIZE(n));

	if (!e)
		return;
	e4_escape((const uint8_t *)s, n, e, 0);
	fputs(e, stdout);
	free(e);
}

/* "yes (N inodes)", "no", or why it cannot tell, for the ext volume at
 * [start, start + size) of disk. */
static void encrypted(struct e4_source *disk, uint64_t start, uint64_t size,
		      char *out, size_t len)
{
	struct e4_fs_options fo = { .listing = 1 };
	struct e4_source *view;
	struct e4_fs *fs;
	const struct e4_enc_inode *v;
	size_t n, flagged = 0;

	if (e4_source_view(disk, start, size, &view) != E4_OK ||
	    e4_fs_open_source(&fs, view, &fo) != E4_OK) {
		snprintf(out, len, "unreadable");
		return;
	}
	if (e4_fs_encrypted_inodes(fs, &v, &n, NULL) != E4_OK) {
		snprintf(out, len, "unreadable");
	} else {
		for (size_t i = 0; i < n; i++)
			flagged += v[i].flagged != 0;
		if (flagged)
			snprintf(out, len, "yes (%zu inodes)", flagged);
		else
			snprintf(out, len, "no");
	}
	e4_fs_close(fs);
}

static void row(const char *index, uint64_t start, uint64_t size,
		const char *fs, const char *enc, const char *type,
		const char *name)
{
	printf("%-6s %14llu %14llu %14llu  %-12s %-18s %-36s ", index,
	       (unsigned long long)start, (unsigned long long)(start / 512),
	       (unsigned long long)size, fs[0] ? fs : "-", enc, type);
	put_escaped(name[0] ? name : "-", 224);
	printf("\n");
}

int cmd_volumes(const struct options *o, struct report *r)
{
	const char *path = o->args[0];
	struct e4_source *disk;
	struct e4_volume_table t;
	char why[1024];
	enum e4_status st;

	st = e4_source_open_any(path, &disk, why, sizeof(why));
	if (st != E4_OK) {
		report_error(r, "%s: cannot open: %s", path, why);
		return EXIT_FATAL;
	}
	printf("image: ");
	put_escaped(path, 4096);
	printf("\ncontainer: %s\n", disk->kind);
	for (size_t i = 0; i < disk->n_meta; i++) {
		printf("  ");
		put_escaped(disk->meta[i].key, 64);
		printf(": ");
		put_escaped(disk->meta[i].value, 4096);
		printf("\n");
	}
	printf("size: %llu bytes (%llu sectors of 512)\n",
	       (unsigned long long)disk->size, (unsigned long long)(disk->size / 512));
	st = e4_volumes_read(disk, &t, why, sizeof(why));
	if (st != E4_OK) {
		report_error(r, "%s: cannot read its partition table: %s", path, why);
		e4_source_close(disk);
		return EXIT_FATAL;
	}
	if (t.scheme[0])
		printf("partition table: %s (sector size %u, id %s)\n", t.scheme,
		       t.sector_size, t.id[0] ? t.id : "-");
	else
		printf("partition table: none\n");
	printf("%-6s %14s %14s %14s  %-12s %-18s %-36s %s\n", "index",
	       "start(bytes)", "start(sector)", "length(bytes)", "filesystem",
	       "encrypted", "type", "name");
	if (e4_has_ext_superblock(disk, 0)) {
		char enc[64];

		encrypted(disk, 0, disk->size, enc, sizeof(enc));
		row("-", 0, disk->size, "ext4", enc,
		    t.n ? "(whole image; overlaps the table)" : "(whole image)", "");
	}
	for (size_t i = 0, scanned = 0; i < t.n; i++) {
		const struct e4_volume *v = &t.v[i];
		char index[16], enc[64] = "-", type[64];

		snprintf(index, sizeof(index), "%u", v->index);
		if (v->ext && scanned++ < MAX_SCANNED)
			encrypted(disk, v->start, v->size, enc, sizeof(enc));
		else if (v->ext)
			snprintf(enc, sizeof(enc), "not scanned");
		snprintf(type, sizeof(type), "%s%s%s", v->type,
			 v->extended ? " (extended)" : v->logical ? " (logical)" : "",
			 v->missing ? " (cut short)" : "");
		row(index, v->start, v->size, v->extended ? "" : v->fs, enc, type,
		    v->name);
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].missing)
			printf("partition %u: %llu bytes of it lie past the end of the image\n",
			       t.v[i].index, (unsigned long long)t.v[i].missing);
	if (t.note[0])
		printf("note: %s\n", t.note);
	e4_volumes_free(&t);
	e4_source_close(disk);
	return finish_stdout(EXIT_DONE, r);
}

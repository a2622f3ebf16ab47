/* Partition tables: the input is a disk.  Its first 4 bytes (le32) give
 * the disk's size in 512-byte sectors (at least the rest of the input;
 * at most 2^32 sectors, 2 TiB); the rest of the input is the disk's
 * first bytes, and the disk reads as zeros after them.  So a GPT backup
 * header at the last LBA or an EBR chain far out is reachable when the
 * size is small, and a table on a 2 TiB disk costs nothing.  The disk is
 * read by e4_volumes_read (every entry, its marks), then chosen from by
 * e4_volume_select as the commands do: by itself, with --partition 1 to
 * 9, and by --offset 1 MiB; each chosen volume's first and last bytes
 * are read. */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "volume.h"

struct disk {
	const uint8_t *data;
	size_t len;
};

static int disk_read(void *arg, uint64_t off, void *buf, size_t len)
{
	const struct disk *d = arg;
	size_t have = off < d->len ? d->len - (size_t)off : 0;

	if (have > len)
		have = len;
	if (have)
		memcpy(buf, d->data + off, have);
	memset((uint8_t *)buf + have, 0, len - have);
	return 0;
}

static void disk_close(void *arg)
{
	free(arg);
}

static const struct e4_source_ops disk_ops = { disk_read, disk_close };

static struct e4_source *open_disk(const uint8_t *data, size_t len, uint64_t size)
{
	struct disk *d = malloc(sizeof(*d));
	struct e4_source *s;

	if (!d)
		return NULL;
	d->data = data;
	d->len = len;
	if (e4_source_new(&disk_ops, d, size, "fuzz disk", 1, "raw", &s) != E4_OK)
		return NULL;
	return s;
}

static void choose(const uint8_t *data, size_t len, uint64_t size,
		   const struct e4_volume_choice *c)
{
	struct e4_source *disk = open_disk(data, len, size), *vol;
	char desc[512], why[1024];
	uint8_t b[16];

	if (!disk)
		return;
	if (e4_volume_select(disk, c, &vol, desc, sizeof(desc), why, sizeof(why)) != E4_OK)
		return;
	if (vol->size >= sizeof(b)) {
		if (e4_source_read(vol, 0, b, sizeof(b)) != E4_OK ||
		    e4_source_read(vol, vol->size - sizeof(b), b, sizeof(b)) != E4_OK)
			abort();
	}
	if (strlen(desc) >= sizeof(desc))
		abort();
	e4_source_close(vol);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_volume_table t;
	struct e4_source *disk;
	uint64_t sectors, disk_size;
	char why[1024];

	if (size < 4)
		return 0;
	sectors = (uint64_t)data[0] | (uint64_t)data[1] << 8 |
		  (uint64_t)data[2] << 16 | (uint64_t)data[3] << 24;
	data += 4;
	size -= 4;
	disk_size = sectors * 512;
	if (disk_size < size)
		disk_size = size;
	disk = open_disk(data, size, disk_size);
	if (!disk)
		return 0;
	if (e4_volumes_read(disk, &t, why, sizeof(why)) == E4_OK) {
		for (size_t i = 0; i < t.n; i++) {
			const struct e4_volume *v = &t.v[i];

			/* what the table says of a volume stays in the image */
			if (v->size && (v->start >= disk_size || v->size > disk_size - v->start))
				abort();
			if (strnlen(v->why_odd, sizeof(v->why_odd)) == sizeof(v->why_odd) ||
			    strnlen(v->name, sizeof(v->name)) == sizeof(v->name))
				abort();
		}
		e4_volumes_free(&t);
	}
	e4_source_close(disk);
	choose(data, size, disk_size, &(struct e4_volume_choice){ 0 });
	for (unsigned int p = 1; p <= 9; p++)
		choose(data, size, disk_size, &(struct e4_volume_choice){ .partition = p });
	choose(data, size, disk_size, &(struct e4_volume_choice){ .by_offset = 1, .offset = 1u << 20 });
	return 0;
}

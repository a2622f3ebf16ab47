/* volume.h: partition tables through libblkid.
 *
 * libblkid reads only file descriptors, and a disk inside an E01 or a
 * qcow2 has none.  It is given a mirror instead: a sparse memfd of the
 * disk's size holding copies of the sectors its table parsers read (the
 * first and last MiB, GPT entry arrays where the headers put them, the
 * EBR chain of an extended partition) and the head and tail of each
 * partition, for its filesystem probers.  The rest reads as zeros, which
 * no parser takes for a table.  The mirror is bounded (MIRROR_MAX). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <blkid/blkid.h>
#include "volume.h"

#define MIB (1024u * 1024u)
#define MIRROR_MAX (64u * MIB)   /* bytes copied into the mirror, at most */
#define GPT_ARRAY_MAX (8u * MIB) /* a GPT entry array libblkid is given */
#define FS_HEAD (128u * 1024u)   /* a partition's head its probers read */
#define FS_TAIL (64u * 1024u)    /* and its tail (RAID superblocks) */
#define FS_PROBED 128u           /* partitions whose filesystem is probed */
#define MAX_PARTITIONS 1024u     /* listed, and EBR links followed */

struct mirror {
	int fd;
	struct e4_source *src;
	uint64_t copied;
	int cut;                 /* MIRROR_MAX was reached */
};

/* Add a note to t (once each, as room allows). */
static void note(struct e4_volume_table *t, const char *what)
{
	size_t n = strlen(t->note);

	if (strstr(t->note, what))
		return;
	snprintf(t->note + n, sizeof(t->note) - n, "%s%s", n ? "; " : "", what);
}

/* Copy [off, off + len) of the disk into the mirror (clipped to the
 * disk, and bounded by MIRROR_MAX: m->cut).  0, or -1 on a read error. */
static int mirror_copy(struct mirror *m, uint64_t off, uint64_t len)
{
	static const size_t piece = 64 * 1024;
	uint8_t *buf;
	int rc = 0;

	if (off >= m->src->size)
		return 0;
	if (len > m->src->size - off)
		len = m->src->size - off;
	if (len > MIRROR_MAX - m->copied) {
		len = MIRROR_MAX - m->copied;
		m->cut = 1;
	}
	buf = malloc(piece);
	if (!buf)
		return -1;
	while (len && !rc) {
		size_t n = len < piece ? (size_t)len : piece;

		if (e4_source_read(m->src, off, buf, n) != E4_OK ||
		    pwrite(m->fd, buf, n, (off_t)off) != (ssize_t)n)
			rc = -1;
		off += n;
		len -= n;
		m->copied += n;
	}
	free(buf);
	return rc;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)le64((const uint8_t[8]){ p[0], p[1], p[2], p[3] });
}

/* The GPT header at lba (sectors of ss) and its entry array, wherever
 * the header says it is (UEFI 2.10, 5.3.2: PartitionEntryLBA at 72,
 * NumberOfPartitionEntries at 80, SizeOfPartitionEntry at 84,
 * AlternateLBA at 32).  A header claiming an array larger than
 * GPT_ARRAY_MAX is left out (libblkid would allocate all of it).
 * Returns the alternate LBA, or 0. */
static uint64_t mirror_gpt(struct mirror *m, struct e4_volume_table *t,
			   uint64_t lba, unsigned int ss)
{
	uint8_t h[92];
	uint64_t entries, bytes;

	if (lba >= m->src->size / ss ||
	    e4_source_read(m->src, lba * ss, h, sizeof(h)) != E4_OK ||
	    memcmp(h, "EFI PART", 8))
		return 0;
	entries = le64(h + 72);
	bytes = (uint64_t)le32(h + 80) * le32(h + 84);
	if (bytes > GPT_ARRAY_MAX) {
		static const uint8_t zero[8];

		if (pwrite(m->fd, zero, sizeof(zero), (off_t)(lba * ss)) != sizeof(zero))
			return 0;
		note(t, "a GPT header claims an entry array of more than 8 MiB: ignored");
		return 0;
	}
	mirror_copy(m, lba * ss, ss);
	if (entries < m->src->size / ss)
		mirror_copy(m, entries * ss, bytes);
	return le64(h + 32);
}

/* The EBRs of the extended partition at start: each links to the next
 * in the first of its entries of an extended type (0x05, 0x0f, 0x85),
 * its start relative to the extended partition, as libblkid and Linux
 * follow them. */
static void mirror_ebr_chain(struct mirror *m, struct e4_volume_table *t,
			     uint64_t start, unsigned int ss)
{
	uint64_t cur = start;

	for (unsigned int hops = 0;; hops++) {
		uint8_t s[512];
		uint64_t next = 0;

		if (hops == MAX_PARTITIONS) {
			note(t, "an EBR chain longer than 1024 links was cut");
			return;
		}
		if (cur >= m->src->size ||
		    e4_source_read(m->src, cur, s, sizeof(s)) != E4_OK)
			return;
		mirror_copy(m, cur, ss);
		if (s[510] != 0x55 || s[511] != 0xaa)
			return;
		for (int e = 0; e < 4 && !next; e++) {
			const uint8_t *p = s + 446 + 16 * e;

			if ((p[4] == 0x05 || p[4] == 0x0f || p[4] == 0x85) && le32(p + 8))
				next = start + (uint64_t)le32(p + 8) * ss;
		}
		if (!next || next == cur)
			return;
		cur = next;
	}
}

static blkid_probe table_probe(struct mirror *m, unsigned int ss)
{
	static char *schemes[] = { "dos", "gpt", NULL };
	blkid_probe pr = blkid_new_probe();

	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, m->fd, 0, (blkid_loff_t)m->src->size) ||
	    blkid_probe_set_sectorsize(pr, ss) ||
	    blkid_probe_enable_superblocks(pr, 0) ||
	    blkid_probe_enable_partitions(pr, 1) ||
	    blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS) ||
	    blkid_probe_filter_partitions_type(pr, BLKID_FLTR_ONLYIN, schemes)) {
		blkid_free_probe(pr);
		return NULL;
	}
	return pr;
}

/* The table libblkid finds in the mirror with sector size ss, or NULL. */
static blkid_partlist probe_table(blkid_probe pr)
{
	blkid_partlist ls = blkid_probe_get_partitions(pr);

	return ls && blkid_partlist_get_table(ls) ? ls : NULL;
}

/* What libblkid's filesystem probers find in v. */
static void probe_fs(struct mirror *m, struct e4_volume *v)
{
	blkid_probe pr;
	const char *type = NULL;
	uint64_t head = v->size < FS_HEAD ? v->size : FS_HEAD;
	uint64_t tail = v->size < FS_TAIL ? v->size : FS_TAIL;

	if (m->cut || mirror_copy(m, v->start, head) ||
	    mirror_copy(m, v->start + v->size - tail, tail) || m->cut) {
		snprintf(v->fs, sizeof(v->fs), "(not probed)");
		return;
	}
	pr = blkid_new_probe();
	if (!pr)
		return;
	if (!blkid_probe_set_device(pr, m->fd, (blkid_loff_t)v->start,
				    (blkid_loff_t)v->size) &&
	    !blkid_probe_enable_superblocks(pr, 1) &&
	    !blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE) &&
	    blkid_do_safeprobe(pr) == 0 &&
	    !blkid_probe_lookup_value(pr, "TYPE", &type, NULL) && type)
		snprintf(v->fs, sizeof(v->fs), "%s", type);
	blkid_free_probe(pr);
}

int e4_has_ext_superblock(struct e4_source *s, uint64_t off)
{
	uint8_t sb[1024];
	uint32_t log_block, blocks_per_group, inodes_per_group, inodes;
	uint16_t rev;

	if (off > s->size || s->size - off < 2048 ||
	    e4_source_read(s, off + 1024, sb, sizeof(sb)) != E4_OK)
		return 0;
	/* ext2_fs.h: s_inodes_count 0x0, s_log_block_size 0x18,
	 * s_blocks_per_group 0x20, s_inodes_per_group 0x28, s_magic 0x38,
	 * s_rev_level 0x4c */
	inodes = le32(sb);
	log_block = le32(sb + 0x18);
	blocks_per_group = le32(sb + 0x20);
	inodes_per_group = le32(sb + 0x28);
	rev = (uint16_t)(sb[0x4c] | sb[0x4d] << 8);
	return sb[0x38] == 0x53 && sb[0x39] == 0xef && inodes && log_block <= 6 &&
	       blocks_per_group && inodes_per_group && rev <= 1;
}

static int by_start(const void *a, const void *b)
{
	const struct e4_volume *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Fill t from ls (partitions inside the disk only). */
static enum e4_status list(struct mirror *m, blkid_partlist ls, unsigned int ss,
			   struct e4_volume_table *t)
{
	blkid_parttable tab = blkid_partlist_get_table(ls);
	int n = blkid_partlist_numof_partitions(ls);
	const char *s;

	snprintf(t->scheme, sizeof(t->scheme), "%s", blkid_parttable_get_type(tab));
	s = blkid_parttable_get_id(tab);
	snprintf(t->id, sizeof(t->id), "%s", s ? s : "");
	t->sector_size = ss;
	if (n < 0)
		n = 0;
	if ((unsigned int)n > MAX_PARTITIONS) {
		note(t, "more than 1024 partitions: the rest are not listed");
		n = MAX_PARTITIONS;
	}
	t->v = calloc(n ? (size_t)n : 1, sizeof(*t->v));
	if (!t->v)
		return E4_NOMEM;
	for (int i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(ls, i);
		struct e4_volume *v = &t->v[t->n];
		blkid_loff_t start = blkid_partition_get_start(p);
		blkid_loff_t size = blkid_partition_get_size(p);

		/* libblkid counts in 512-byte sectors; a partition that runs
		 * past the end of a truncated image is kept, clipped */
		if (start < 0 || size <= 0 || (uint64_t)start >= t->disk_size / 512)
			continue;
		v->index = (unsigned int)blkid_partition_get_partno(p);
		v->start = (uint64_t)start * 512;
		v->size = (uint64_t)size * 512;
		if ((uint64_t)size > t->disk_size / 512 - (uint64_t)start) {
			v->missing = v->size - (t->disk_size - v->start);
			v->size = t->disk_size - v->start;
		}
		s = blkid_partition_get_type_string(p);
		if (s)
			snprintf(v->type, sizeof(v->type), "%s", s);
		else
			snprintf(v->type, sizeof(v->type), "0x%02x",
				 (unsigned int)blkid_partition_get_type(p));
		s = blkid_partition_get_name(p);
		snprintf(v->name, sizeof(v->name), "%s", s ? s : "");
		v->extended = blkid_partition_is_extended(p);
		v->logical = blkid_partition_is_logical(p);
		t->n++;
	}
	qsort(t->v, t->n, sizeof(*t->v), by_start);
	for (size_t i = 0; i < t->n; i++) {
		struct e4_volume *v = &t->v[i];

		if (v->extended)
			continue;
		v->ext = v->size >= 2048 && e4_has_ext_superblock(m->src, v->start);
		if (i < FS_PROBED)
			probe_fs(m, v);
		else
			snprintf(v->fs, sizeof(v->fs), "(not probed)");
	}
	if (m->cut)
		note(t, "the 64 MiB read for probing ran out: some filesystems not probed");
	return E4_OK;
}

enum e4_status e4_volumes_read(struct e4_source *disk, struct e4_volume_table *t,
			       char *why, size_t whylen)
{
	static const unsigned int sizes[] = { 512, 4096 };
	struct mirror m = { -1, disk, 0, 0 };
	enum e4_status st = E4_OK;

	memset(t, 0, sizeof(*t));
	t->disk_size = disk->size;
	m.fd = memfd_create("e4dump-partition-tables", MFD_CLOEXEC);
	if (m.fd < 0 || ftruncate(m.fd, (off_t)disk->size)) {
		snprintf(why, whylen, "cannot make a mirror for libblkid: %s",
			 strerror(errno));
		if (m.fd >= 0)
			close(m.fd);
		return E4_IO;
	}
	if (mirror_copy(&m, 0, MIB) ||
	    (disk->size > MIB && mirror_copy(&m, disk->size - MIB, MIB))) {
		snprintf(why, whylen, "cannot read the disk's first and last MiB");
		close(m.fd);
		return E4_IO;
	}
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int ss = sizes[k];
		uint64_t alt = mirror_gpt(&m, t, 1, ss);
		blkid_probe pr;
		blkid_partlist ls;

		/* the backup where the primary says, and at the last LBA,
		 * where libblkid looks when the primary is bad */
		if (alt && alt != 1)
			mirror_gpt(&m, t, alt, ss);
		if (disk->size / ss > 1 && alt != disk->size / ss - 1)
			mirror_gpt(&m, t, disk->size / ss - 1, ss);
		pr = table_probe(&m, ss);
		if (!pr) {
			st = E4_NOMEM;
			break;
		}
		ls = probe_table(pr);
		if (ls) {
			/* the logical partitions: follow the chain, look again */
			int n = blkid_partlist_numof_partitions(ls), ebrs = 0;

			for (int i = 0; i < n; i++) {
				blkid_partition p = blkid_partlist_get_partition(ls, i);

				if (blkid_partition_is_extended(p) &&
				    blkid_partition_get_start(p) >= 0) {
					mirror_ebr_chain(&m, t, (uint64_t)blkid_partition_get_start(p) * 512, ss);
					ebrs = 1;
				}
			}
			if (ebrs) {
				blkid_free_probe(pr);
				pr = table_probe(&m, ss);
				ls = pr ? probe_table(pr) : NULL;
			}
		}
		if (ls) {
			st = list(&m, ls, ss, t);
			blkid_free_probe(pr);
			break;
		}
		if (pr)
			blkid_free_probe(pr);
	}
	close(m.fd);
	if (st == E4_NOMEM)
		snprintf(why, whylen, "out of memory");
	return st;
}

void e4_volumes_free(struct e4_volume_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* "partition 2 (gpt, start 5242880 bytes, sector 10240, 4194304 bytes)" */
static void describe(const struct e4_volume_table *t, const struct e4_volume *v,
		     char *s, size_t len)
{
	int k = snprintf(s, len, "partition %u (%s, start %llu bytes, sector %llu, %llu bytes",
			 v->index, t->scheme, (unsigned long long)v->start,
			 (unsigned long long)(v->start / 512), (unsigned long long)v->size);

	if (k > 0 && (size_t)k < len)
		snprintf(s + k, len - (size_t)k, v->missing ?
			 "; %llu more past the end of the image)" : ")",
			 (unsigned long long)v->missing);
}

/* why lists the ext partitions of t. */
static void list_ext(const struct e4_volume_table *t, char *why, size_t whylen,
		     size_t used)
{
	for (size_t i = 0; i < t->n && used < whylen; i++) {
		const struct e4_volume *v = &t->v[i];
		int k;

		if (!v->ext)
			continue;
		k = snprintf(why + used, whylen - used, "; --partition %u: start %llu bytes, %llu bytes, %s",
			     v->index, (unsigned long long)v->start,
			     (unsigned long long)v->size, v->fs[0] ? v->fs : "ext");
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

/* Whether disk shows a partition table's signature: an MBR's 0x55aa at
 * 510 or a GPT header at LBA 1 (512 or 4096).  mke2fs zeroes these, so a
 * bare ext4 has none and is opened without reading a table. */
static int table_signature(struct e4_source *disk)
{
	uint8_t b[8];

	if (e4_source_read(disk, 510, b, 2) == E4_OK && b[0] == 0x55 && b[1] == 0xaa)
		return 1;
	for (uint64_t at = 512; at <= 4096; at += 3584)
		if (e4_source_read(disk, at, b, 8) == E4_OK && !memcmp(b, "EFI PART", 8))
			return 1;
	return 0;
}

static enum e4_status choose(struct e4_source *disk, const struct e4_volume_choice *c,
			     uint64_t *off, uint64_t *size, char *desc,
			     size_t desclen, char *why, size_t whylen)
{
	struct e4_volume_table t;
	enum e4_status st;
	size_t found = 0, pick = 0;
	int whole = 0;

	*size = 0;
	*off = 0;
	if (c->by_offset) {
		*off = c->offset;
		if (!e4_has_ext_superblock(disk, c->offset)) {
			snprintf(why, whylen, "offset %llu (sector %llu): no ext2/3/4 superblock there",
				 (unsigned long long)c->offset,
				 (unsigned long long)(c->offset / 512));
			return E4_NOT_FOUND;
		}
		snprintf(desc, desclen, "offset %llu bytes", (unsigned long long)c->offset);
		return E4_OK;
	}
	if (!c->partition) {
		whole = e4_has_ext_superblock(disk, 0);
		if (whole && !table_signature(disk)) {
			snprintf(desc, desclen, "the whole image");
			return E4_OK;
		}
	}
	st = e4_volumes_read(disk, &t, why, whylen);
	if (st != E4_OK)
		return st;
	for (size_t i = 0; i < t.n; i++) {
		if (c->partition ? t.v[i].index == c->partition : t.v[i].ext) {
			if (!found++)
				pick = i;
		}
	}
	if (c->partition && !found) {
		int k = snprintf(why, whylen, "no partition %u (%s%s%zu partitions",
				 c->partition, t.scheme, t.n ? ": " : "no partition table, ",
				 t.n);
		for (size_t i = 0; i < t.n && k > 0 && (size_t)k < whylen; i++) {
			int more = snprintf(why + k, whylen - (size_t)k, "%s%u",
					    i ? ", " : " numbered ", t.v[i].index);

			if (more < 0)
				break;
			k += more;
		}
		if (k > 0 && (size_t)k < whylen)
			snprintf(why + k, whylen - (size_t)k, ")%s%s",
				 t.note[0] ? "; " : "", t.note);
		st = E4_NOT_FOUND;
	} else if (!found && whole) {
		snprintf(desc, desclen, "the whole image");
	} else if (!found) {
		if (t.scheme[0])
			snprintf(why, whylen, "no ext4 superblock at offset 0 and no ext4 partition in its %s table (%zu partitions; see e4dump volumes)%s%s",
				 t.scheme, t.n, t.note[0] ? "; " : "", t.note);
		else
			snprintf(why, whylen, "no ext4 superblock (bad magic at byte 1080) and no partition table");
		st = E4_NOT_FOUND;
	} else if (!c->partition && found + (size_t)whole > 1) {
		int k = snprintf(why, whylen, "%zu ext4 volumes: choose one with --partition N%s",
				 found + (size_t)whole,
				 whole ? " or --offset 0 (the whole image starts with one)" : "");

		if (k > 0)
			list_ext(&t, why, whylen, (size_t)k);
		st = E4_INVALID;
	} else if (!t.v[pick].ext) {
		snprintf(why, whylen, "partition %u: no ext2/3/4 superblock there (%s)",
			 t.v[pick].index, t.v[pick].fs[0] ? t.v[pick].fs :
			 t.v[pick].extended ? "an extended partition" : "unknown contents");
		st = E4_NOT_FOUND;
	} else {
		*off = t.v[pick].start;
		*size = t.v[pick].size;
		describe(&t, &t.v[pick], desc, desclen);
	}
	e4_volumes_free(&t);
	return st;
}

enum e4_status e4_volume_select(struct e4_source *disk,
				const struct e4_volume_choice *c,
				struct e4_source **vol, char *desc,
				size_t desclen, char *why, size_t whylen)
{
	uint64_t off = 0, size = 0;
	enum e4_status st;

	*vol = NULL;
	st = choose(disk, c, &off, &size, desc, desclen, why, whylen);
	if (st == E4_OK && !off && !size) {
		*vol = disk;
		return E4_OK;
	}
	if (st != E4_OK) {
		e4_source_close(disk);
		return st;
	}
	st = e4_source_window(disk, off, size, vol);
	if (st != E4_OK)
		snprintf(why, whylen, "%s: outside the image", desc);
	return st;
}

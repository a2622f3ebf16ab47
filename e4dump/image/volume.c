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
#define FS_HEAD (256u * 1024u)   /* a partition's head its probers read */
#define FS_TAIL (128u * 1024u)   /* and its tail (RAID superblocks) */
#define MAX_PARTITIONS 1024u     /* listed (a GPT may claim more) */
#define MAX_EBRS 256u            /* links followed in an EBR chain */

struct mirror {
	int fd;
	struct e4_source *src;
	uint64_t copied;
};

/* Copy [off, off + len) of the disk into the mirror (clipped to the
 * disk; silently bounded by MIRROR_MAX).  0, or -1 on a read error. */
static int mirror_copy(struct mirror *m, uint64_t off, uint64_t len)
{
	static const size_t piece = 64 * 1024;
	uint8_t *buf;
	int rc = 0;

	if (off >= m->src->size)
		return 0;
	if (len > m->src->size - off)
		len = m->src->size - off;
	if (len > MIRROR_MAX - m->copied)
		len = MIRROR_MAX - m->copied;
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
 * AlternateLBA at 32).  Returns the alternate LBA, or 0. */
static uint64_t mirror_gpt(struct mirror *m, uint64_t lba, unsigned int ss)
{
	uint8_t h[92];
	uint64_t entries, bytes;

	if (lba > m->src->size / ss ||
	    e4_source_read(m->src, lba * ss, h, sizeof(h)) != E4_OK ||
	    memcmp(h, "EFI PART", 8))
		return 0;
	mirror_copy(m, lba * ss, ss);
	entries = le64(h + 72);
	bytes = (uint64_t)le32(h + 80) * le32(h + 84);
	if (bytes > MIB)
		bytes = MIB;
	if (entries < m->src->size / ss)
		mirror_copy(m, entries * ss, bytes);
	return le64(h + 32);
}

/* The EBRs of the extended partition at [start, start + size): each
 * links to the next in its second entry (type 0x05, 0x0f or 0x85, start
 * relative to the extended partition). */
static void mirror_ebr_chain(struct mirror *m, uint64_t start, uint64_t size,
			     unsigned int ss)
{
	uint64_t cur = start;

	for (unsigned int hops = 0; hops < MAX_EBRS; hops++) {
		uint8_t s[512];
		uint8_t type;
		uint64_t next;

		if (cur < start || cur - start >= size ||
		    e4_source_read(m->src, cur, s, sizeof(s)) != E4_OK)
			return;
		mirror_copy(m, cur, ss);
		if (s[510] != 0x55 || s[511] != 0xaa)
			return;
		type = s[446 + 16 + 4];
		next = start + (uint64_t)le32(s + 446 + 16 + 8) * ss;
		if ((type != 0x05 && type != 0x0f && type != 0x85) || next == start)
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

/* What libblkid's filesystem probers find at [start, start + size). */
static void probe_fs(struct mirror *m, struct e4_volume *v)
{
	blkid_probe pr;
	const char *type = NULL;

	if (mirror_copy(m, v->start, FS_HEAD) ||
	    (v->size > FS_TAIL && mirror_copy(m, v->start + v->size - FS_TAIL, FS_TAIL)))
		return;
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
	uint8_t magic[2];

	return off <= s->size && s->size - off >= 2048 &&
	       e4_source_read(s, off + 1024 + 56, magic, 2) == E4_OK &&
	       magic[0] == 0x53 && magic[1] == 0xef;
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
	if ((unsigned int)n > MAX_PARTITIONS)
		n = MAX_PARTITIONS;
	t->v = calloc(n ? (size_t)n : 1, sizeof(*t->v));
	if (!t->v)
		return E4_NOMEM;
	for (int i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(ls, i);
		struct e4_volume *v = &t->v[t->n];
		blkid_loff_t start = blkid_partition_get_start(p);
		blkid_loff_t size = blkid_partition_get_size(p);

		/* libblkid counts in 512-byte sectors */
		if (start < 0 || size <= 0 || (uint64_t)start > t->disk_size / 512 ||
		    (uint64_t)size > t->disk_size / 512 - (uint64_t)start)
			continue;
		v->index = (unsigned int)blkid_partition_get_partno(p);
		v->start = (uint64_t)start * 512;
		v->size = (uint64_t)size * 512;
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
		v->ext = e4_has_ext_superblock(m->src, v->start);
		probe_fs(m, v);
	}
	return E4_OK;
}

enum e4_status e4_volumes_read(struct e4_source *disk, struct e4_volume_table *t,
			       char *why, size_t whylen)
{
	static const unsigned int sizes[] = { 512, 4096 };
	struct mirror m = { -1, disk, 0 };
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
		uint64_t alt = mirror_gpt(&m, 1, ss);
		blkid_probe pr;
		blkid_partlist ls;

		if (alt)
			mirror_gpt(&m, alt, ss);
		else if (disk->size >= 2 * (uint64_t)ss)
			mirror_gpt(&m, disk->size / ss - 1, ss);
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
				    blkid_partition_get_start(p) >= 0 &&
				    blkid_partition_get_size(p) > 0) {
					mirror_ebr_chain(&m, (uint64_t)blkid_partition_get_start(p) * 512,
							 (uint64_t)blkid_partition_get_size(p) * 512, ss);
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

/* "partition 2 (gpt, bytes 5242880-9437183)" */
static void describe(const struct e4_volume_table *t, const struct e4_volume *v,
		     char *s, size_t len)
{
	snprintf(s, len, "partition %u (%s, start %llu bytes, sector %llu, %llu bytes)",
		 v->index, t->scheme, (unsigned long long)v->start,
		 (unsigned long long)(v->start / 512), (unsigned long long)v->size);
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

static enum e4_status choose(struct e4_source *disk, const struct e4_volume_choice *c,
			     uint64_t *off, uint64_t *size, char *desc,
			     size_t desclen, char *why, size_t whylen)
{
	struct e4_volume_table t;
	enum e4_status st;
	size_t found = 0, pick = 0;

	*size = 0;
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
	if (!c->partition && e4_has_ext_superblock(disk, 0)) {
		*off = 0;
		snprintf(desc, desclen, "the whole image");
		return E4_OK;
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
			snprintf(why + k, whylen - (size_t)k, ")");
		st = E4_NOT_FOUND;
	} else if (!found) {
		if (t.scheme[0])
			snprintf(why, whylen, "no ext4 superblock at offset 0 and no ext4 partition in its %s table (%zu partitions; see e4dump volumes)",
				 t.scheme, t.n);
		else
			snprintf(why, whylen, "no ext4 superblock (bad magic at byte 1080) and no partition table");
		st = E4_NOT_FOUND;
	} else if (!c->partition && found > 1) {
		int k = snprintf(why, whylen, "%zu ext4 partitions: choose one with --partition N",
				 found);

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

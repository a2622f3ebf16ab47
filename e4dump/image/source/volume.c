/* volume.h: partition tables read by hand, every entry listed.
 *
 * The tables are read here, through the e4_source reader, because no
 * library at hand lists every entry of a hostile table: libblkid drops
 * entries outside the usable area or the disk without a word (and reads
 * only descriptors: a disk in an E01 had to be mirrored into a memfd the
 * size of the disk, which RLIMIT_FSIZE kills); The Sleuth Kit's libtsk
 * refuses a whole table when its first two entries start past the image,
 * skips GPT entries at LBA 0, wraps the length of one running backwards,
 * reads every entry a GPT header claims (2^32) and follows EBR chains by
 * recursion, one stack frame per link.  Layouts: UEFI 2.10 5.2 (MBR: the
 * 0x55aa signature at 510, four 16-byte entries at 446: type at 4, start
 * LBA at 8, sectors at 12) and 5.3 (GPT); the EBR chain as Linux follows
 * it (block/partitions/msdos.c: logical partitions are every non-extended
 * entry of an EBR, the 3rd and 4th only inside the EBR's link and the
 * extended partition, relative to the EBR; the first extended entry links
 * to the next EBR, relative to the extended partition).
 *
 * libblkid is kept for what it is needed for: naming the filesystem in a
 * partition.  Its probers read a memfd holding the partition's head
 * (FS_HEAD bytes at most: a constant, never the evidence's size). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "dynlib.h"
#include "volume.h"
#include "byteorder.h"

#define MIB (1024u * 1024u)
#define GPT_ARRAY_MAX (8u * MIB) /* a GPT entry array read, at most */
#define FS_HEAD (128u * 1024u)   /* a partition's head its probers read */
#define FS_PROBED 128u           /* partitions whose filesystem is probed */
#define MAX_PARTITIONS 1024u     /* listed, and EBR links followed */

/* Add a note to t (once each, as room allows). */
static void note(struct e4_volume_table *t, const char *what)
{
	size_t n = strlen(t->note);

	if (strstr(t->note, what))
		return;
	snprintf(t->note + n, sizeof(t->note) - n, "%s%s", n ? "; " : "", what);
}

/* Mark v odd with flag and what (once each, as room allows). */
static void mark(struct e4_volume *v, unsigned int flag, const char *what)
{
	size_t n = strlen(v->why_odd);

	v->odd |= flag;
	if (strstr(v->why_odd, what))
		return;
	snprintf(v->why_odd + n, sizeof(v->why_odd) - n, "%s%s", n ? "; " : "", what);
}

/* CRC-32 as UEFI 2.10 5.3.2 uses it (IEEE 802.3, reflected). */
static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
	uint32_t table[256], c = 0xffffffffu;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t k = i;

		for (int b = 0; b < 8; b++)
			k = k & 1 ? 0xedb88320u ^ (k >> 1) : k >> 1;
		table[i] = k;
	}
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* A GUID as text: the first three fields little-endian (UEFI 2.10 A). */
static void guid_text(const uint8_t *g, char *s, size_t len)
{
	snprintf(s, len, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 (unsigned int)e4_le32(g), (unsigned int)(g[4] | g[5] << 8),
		 (unsigned int)(g[6] | g[7] << 8), g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15]);
}

/* n UTF-16LE units at p as UTF-8 in s, up to the first NUL; a unit that
 * is not half of a pair becomes U+FFFD. */
static void utf16_text(const uint8_t *p, size_t n, char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = (uint32_t)(p[2 * i] | p[2 * i + 1] << 8);

		if (!c)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t d = (uint32_t)(p[2 * i + 2] | p[2 * i + 3] << 8);

			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
				i++;
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c < 0xe000) {
			c = 0xfffd;
		}
		if (o + 5 > len)
			break;
		if (c < 0x80) {
			s[o++] = (char)c;
		} else if (c < 0x800) {
			s[o++] = (char)(0xc0 | c >> 6);
			s[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			s[o++] = (char)(0xe0 | c >> 12);
			s[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			s[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			s[o++] = (char)(0xf0 | c >> 18);
			s[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			s[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			s[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	if (len)
		s[o < len ? o : len - 1] = 0;
}

/* The next entry of t, or NULL when MAX_PARTITIONS are listed (noted). */
static struct e4_volume *add(struct e4_volume_table *t)
{
	if (t->n == MAX_PARTITIONS) {
		note(t, "more than 1024 partitions: the rest are not listed");
		return NULL;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	return &t->v[t->n++];
}

/* Where v lies in bytes, from its table sectors first..last (count
 * sectors; 0 for an entry running backwards or of zero length), clipped
 * to the image: missing says what is past its end. */
static void place(struct e4_volume_table *t, struct e4_volume *v,
		  uint64_t first, uint64_t count)
{
	uint64_t ss = t->sector_size, disk = t->disk_size;

	v->first = first;
	v->last = count ? first + count - 1 : first; /* zero: marked by the caller */
	if (first > UINT64_MAX / ss || first * ss >= disk) {
		v->start = first <= UINT64_MAX / ss ? first * ss : UINT64_MAX;
		v->size = 0;
		v->missing = count <= UINT64_MAX / ss ? count * ss : UINT64_MAX;
		if (count) {
			char why[96];

			snprintf(why, sizeof(why), "starts past the end of the image (sector %llu of %llu)",
				 (unsigned long long)first, (unsigned long long)(disk / ss));
			mark(v, E4_VOL_OUTSIDE, why);
		}
		return;
	}
	v->start = first * ss;
	v->size = count <= UINT64_MAX / ss ? count * ss : UINT64_MAX;
	if (v->size > disk - v->start) {
		v->missing = v->size - (disk - v->start);
		v->size = disk - v->start;
		v->odd |= E4_VOL_CUT_SHORT;
	}
}

/* An MBR or EBR entry: type, start, sectors, whether in use (Linux and
 * The Sleuth Kit: a nonzero size; here also a type without a size). */
struct mbr_entry {
	unsigned int type;
	uint32_t start, count;
};

static struct mbr_entry mbr_entry(const uint8_t *sector, int i)
{
	const uint8_t *p = sector + 446 + 16 * i;

	return (struct mbr_entry){ p[4], e4_le32(p + 8), e4_le32(p + 12) };
}

static int is_extended(unsigned int type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

static struct e4_volume *mbr_volume(struct e4_volume_table *t, struct mbr_entry e,
				    uint64_t first, unsigned int table, int entry)
{
	struct e4_volume *v = add(t);

	if (!v)
		return NULL;
	snprintf(v->slot, sizeof(v->slot), "%03u:%03d", table, entry);
	snprintf(v->type, sizeof(v->type), "0x%02x", e.type);
	place(t, v, first, e.count);
	if (!e.count)
		mark(v, E4_VOL_BACKWARDS, "zero length");
	return v;
}

/* The logical partitions of the extended partition ext (its first
 * sector and sectors), numbered from *next on; what Linux skips is
 * marked E4_VOL_NOT_LINUX and numbered later. */
static void ebr_chain(struct e4_source *src, struct e4_volume_table *t,
		      uint64_t ext, uint64_t ext_count, unsigned int *next)
{
	uint64_t seen[64], *visited = seen, cur = ext, cur_count = ext_count;
	size_t nvisited = 0, cap = sizeof(seen) / sizeof(seen[0]);
	char what[160];

	for (unsigned int table = 1;; table++) {
		uint8_t s[512];
		size_t first_here = t->n;
		struct mbr_entry link = { 0, 0, 0 };
		uint64_t to;
		int linked = 0;

		if (table > MAX_PARTITIONS) {
			note(t, "an EBR chain longer than 1024 links was cut");
			break;
		}
		if (cur > (UINT64_MAX - 511) / 512 || cur * 512 + 512 > src->size ||
		    e4_source_read(src, cur * 512, s, sizeof(s)) != E4_OK) {
			snprintf(what, sizeof(what), "the EBR at sector %llu is outside the image or unreadable: the chain ends there",
				 (unsigned long long)cur);
			note(t, what);
			break;
		}
		if (s[510] != 0x55 || s[511] != 0xaa) {
			if (table > 1) {
				snprintf(what, sizeof(what), "the EBR at sector %llu has no 0x55aa signature: the chain ends there",
					 (unsigned long long)cur);
				note(t, what);
			}
			break;
		}
		if (nvisited == cap) {
			uint64_t *more = malloc(2 * cap * sizeof(*more));

			if (!more) {
				note(t, "out of memory following the EBR chain");
				break;
			}
			memcpy(more, visited, nvisited * sizeof(*more));
			if (visited != seen)
				free(visited);
			visited = more;
			cap *= 2;
		}
		visited[nvisited++] = cur;
		for (int i = 0; i < 4; i++) {
			struct mbr_entry e = mbr_entry(s, i);
			struct e4_volume *v;
			uint64_t at = cur + e.start;

			if (is_extended(e.type) && e.count) {
				if (!linked++)
					link = e;
				else
					note(t, "an EBR has a second link: not followed (Linux follows the first)");
				continue;
			}
			if (!e.count && !e.type)
				continue;
			v = mbr_volume(t, e, at, table, i);
			if (!v)
				goto out;
			v->logical = 1;
			if (at < ext || at + e.count > ext + ext_count)
				mark(v, E4_VOL_NOT_IN_EXT, "outside its extended partition");
			/* Linux: "these sometimes contain random garbage" */
			if (!e.count || (i >= 2 && (e.start + (uint64_t)e.count > cur_count ||
						    at < ext || at + e.count > ext + ext_count)))
				mark(v, E4_VOL_NOT_LINUX, "an entry Linux skips");
			else
				v->index = (*next)++;
		}
		if (!linked)
			break;
		to = ext + link.start;
		for (size_t k = 0; k < nvisited; k++) {
			if (visited[k] != to)
				continue;
			snprintf(what, sizeof(what), "its EBR (sector %llu) links back to the EBR at sector %llu",
				 (unsigned long long)cur, (unsigned long long)to);
			for (size_t j = first_here; j < t->n; j++)
				mark(&t->v[j], E4_VOL_LOOP, what);
			snprintf(what, sizeof(what), "the EBR chain loops: the EBR at sector %llu links back to sector %llu",
				 (unsigned long long)cur, (unsigned long long)to);
			note(t, what);
			goto out;
		}
		cur = to;
		cur_count = link.count;
	}
out:
	if (visited != seen)
		free(visited);
}

/* The MBR in s (sector 0, its signature checked) into t. */
static void read_mbr(struct e4_source *src, struct e4_volume_table *t, const uint8_t *s)
{
	unsigned int next = 5;

	snprintf(t->scheme, sizeof(t->scheme), "dos");
	snprintf(t->id, sizeof(t->id), "%08x", (unsigned int)e4_le32(s + 440));
	t->sector_size = 512;
	for (int i = 0; i < 4; i++) {
		struct mbr_entry e = mbr_entry(s, i);
		struct e4_volume *v;

		if (!e.count && !e.type)
			continue;
		v = mbr_volume(t, e, e.start, 0, i);
		if (!v)
			return;
		v->index = (unsigned int)i + 1;
		if (is_extended(e.type) && e.count) {
			v->extended = 1;
			if (!(v->odd & E4_VOL_OUTSIDE))
				ebr_chain(src, t, e.start, e.count, &next);
		}
	}
	/* what Linux skips, numbered after what it numbers */
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].index)
			t->v[i].index = next++;
}

struct gpt {
	uint64_t lba, alternate, first_usable, last_usable, array_lba;
	uint32_t entries, entry_size;
	uint8_t guid[16];
	int crc_ok;       /* the header's and the array's CRC32 match */
	uint8_t *array;   /* entries * entry_size bytes */
};

/* The GPT header at lba (sectors of ss) and its entry array (UEFI 2.10
 * 5.3.2: HeaderSize at 12, HeaderCRC32 at 16, MyLBA at 24, AlternateLBA
 * at 32, FirstUsableLBA at 40, LastUsableLBA at 48, DiskGUID at 56,
 * PartitionEntryLBA at 72, NumberOfPartitionEntries at 80,
 * SizeOfPartitionEntry at 84, PartitionEntryArrayCRC32 at 88).  1 with g
 * filled (g->crc_ok says whether it can be trusted), or 0: none there,
 * or not readable (noted). */
static int gpt_header(struct e4_source *src, struct e4_volume_table *t,
		      uint64_t lba, unsigned int ss, struct gpt *g)
{
	uint8_t *h;
	uint32_t hsize, crc;
	uint64_t bytes;

	memset(g, 0, sizeof(*g));
	if (lba >= src->size / ss)
		return 0;
	h = malloc(ss);
	if (!h || e4_source_read(src, lba * ss, h, ss) != E4_OK ||
	    memcmp(h, "EFI PART", 8)) {
		free(h);
		return 0;
	}
	hsize = e4_le32(h + 12);
	crc = e4_le32(h + 16);
	g->lba = lba;
	g->alternate = e4_le64(h + 32);
	g->first_usable = e4_le64(h + 40);
	g->last_usable = e4_le64(h + 48);
	memcpy(g->guid, h + 56, 16);
	g->array_lba = e4_le64(h + 72);
	g->entries = e4_le32(h + 80);
	g->entry_size = e4_le32(h + 84);
	g->crc_ok = hsize >= 92 && hsize <= ss && e4_le64(h + 24) == lba;
	if (g->crc_ok) {
		memset(h + 16, 0, 4);
		g->crc_ok = crc32_ieee(h, hsize) == crc;
	}
	crc = e4_le32(h + 88);
	free(h);
	bytes = (uint64_t)g->entries * g->entry_size;
	if (g->entry_size < 128 || g->entry_size % 8) {
		note(t, "a GPT header gives an entry size below 128 or not a multiple of 8: ignored");
		return 0;
	}
	if (bytes > GPT_ARRAY_MAX) {
		note(t, "a GPT header claims an entry array of more than 8 MiB: ignored");
		return 0;
	}
	if (g->array_lba >= src->size / ss || bytes > src->size - g->array_lba * ss) {
		note(t, "a GPT header puts its entry array outside the image: ignored");
		return 0;
	}
	g->array = malloc(bytes ? bytes : 1);
	if (!g->array || e4_source_read(src, g->array_lba * ss, g->array, bytes) != E4_OK) {
		note(t, g->array ? "a GPT entry array is unreadable" : "out of memory");
		free(g->array);
		g->array = NULL;
		return 0;
	}
	if (g->crc_ok)
		g->crc_ok = crc32_ieee(g->array, bytes) == crc;
	return 1;
}

/* The GPT of sector size ss, if there is one: the primary header, else
 * the backup at the last LBA, else the one the primary names; failing
 * CRCs, the primary as it is (its entries marked). */
static int read_gpt(struct e4_source *src, struct e4_volume_table *t, unsigned int ss)
{
	struct gpt p, b, *g = NULL;
	int have_p = gpt_header(src, t, 1, ss, &p), have_b = 0;

	memset(&b, 0, sizeof(b));
	uint64_t last = src->size / ss - 1;
	char what[160];

	if (have_p && p.crc_ok) {
		g = &p;
	} else {
		have_b = gpt_header(src, t, last, ss, &b);
		if ((!have_b || !b.crc_ok) && have_p && p.alternate != last &&
		    p.alternate > 1) {
			free(b.array);
			have_b = gpt_header(src, t, p.alternate, ss, &b);
		}
		if (have_b && b.crc_ok) {
			g = &b;
			snprintf(what, sizeof(what), "the primary GPT header is %s: the backup at LBA %llu is used",
				 have_p ? "damaged (a CRC fails)" : "missing",
				 (unsigned long long)b.lba);
			note(t, what);
		} else if (have_p) {
			g = &p;
			note(t, "no GPT header whose CRCs match: the entries are listed as the primary says");
		} else if (have_b) {
			g = &b;
			note(t, "no GPT header whose CRCs match: the entries are listed as the backup says");
		}
	}
	if (!g) {
		free(p.array);
		free(b.array);
		return 0;
	}
	snprintf(t->scheme, sizeof(t->scheme), "gpt");
	guid_text(g->guid, t->id, sizeof(t->id));
	/* the primary names the backup's place; the backup is its own */
	t->gpt_backup = g == &p ? g->alternate : g->lba;
	t->gpt_last_usable = g->last_usable;
	t->sector_size = ss;
	for (uint32_t i = 0; i < g->entries; i++) {
		static const uint8_t unused[16];
		const uint8_t *e = g->array + (size_t)i * g->entry_size;
		uint64_t first = e4_le64(e + 32), lastlba = e4_le64(e + 40);
		struct e4_volume *v;

		if (!memcmp(e, unused, 16))
			continue;
		v = add(t);
		if (!v)
			break;
		v->index = i + 1;
		snprintf(v->slot, sizeof(v->slot), "%03u", (unsigned int)i);
		guid_text(e, v->type, sizeof(v->type));
		utf16_text(e + 56, 36, v->name, sizeof(v->name));
		if (lastlba < first) {
			place(t, v, first, 0);
			snprintf(what, sizeof(what), "ends before it starts (last LBA %llu, first %llu)",
				 (unsigned long long)lastlba, (unsigned long long)first);
			mark(v, E4_VOL_BACKWARDS, what);
			v->last = lastlba;
		} else {
			place(t, v, first, lastlba - first + 1 ? lastlba - first + 1 : UINT64_MAX);
			v->last = lastlba;
		}
		if (first < g->first_usable || lastlba > g->last_usable) {
			snprintf(what, sizeof(what), "outside the GPT usable area (LBA %llu to %llu)",
				 (unsigned long long)g->first_usable,
				 (unsigned long long)g->last_usable);
			mark(v, E4_VOL_UNUSABLE, what);
		}
		if (!g->crc_ok)
			mark(v, E4_VOL_BAD_CRC, "from a GPT whose CRC fails");
	}
	free(p.array);
	free(b.array);
	return 1;
}

/* Entries that overlap (extended partitions hold their logical ones:
 * those are checked against the extended one's bounds instead). */
static void overlaps(struct e4_volume_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct e4_volume *a = &t->v[i];

		if (a->odd & E4_VOL_BACKWARDS)
			continue;
		for (size_t j = i + 1; j < t->n; j++) {
			struct e4_volume *b = &t->v[j];
			char what[48];

			if ((b->odd & E4_VOL_BACKWARDS) || a->last < b->first || b->last < a->first)
				continue;
			if ((a->extended && b->logical) || (b->extended && a->logical))
				continue;
			snprintf(what, sizeof(what), "overlaps partition %u", b->index);
			mark(a, E4_VOL_OVERLAP, what);
			snprintf(what, sizeof(what), "overlaps partition %u", a->index);
			mark(b, E4_VOL_OVERLAP, what);
		}
	}
}

/* What libblkid's filesystem probers find in the head of v: they read a
 * memfd holding its first FS_HEAD bytes, told that is all there is (not
 * probed when RLIMIT_FSIZE would not let the memfd hold them: SIGXFSZ). */
static void probe_fs(struct e4_source *src, struct e4_volume *v)
{
	uint64_t len = v->size < FS_HEAD ? v->size : FS_HEAD;
	uint8_t *buf = malloc(FS_HEAD);
	blkid_probe pr = NULL;
	const char *type = NULL;
	struct rlimit fsize;
	int fd = -1;

	if (e4_dl_need(E4_DL_BLKID, NULL, 0)) {
		/* what is probed is a hint: the table is read without it */
		snprintf(v->fs, sizeof(v->fs), "(no %s)", e4_dl_package(E4_DL_BLKID));
		free(buf);
		return;
	}
	if (!getrlimit(RLIMIT_FSIZE, &fsize) && fsize.rlim_cur != RLIM_INFINITY &&
	    fsize.rlim_cur < len) {
		snprintf(v->fs, sizeof(v->fs), "(not probed)");
		free(buf);
		return;
	}
	if (!buf || e4_source_read(src, v->start, buf, (size_t)len) != E4_OK ||
	    (fd = memfd_create("e4dump-partition-head", MFD_CLOEXEC)) < 0 ||
	    pwrite(fd, buf, (size_t)len, 0) != (ssize_t)len ||
	    !(pr = E4_BLKID->new_probe())) {
		snprintf(v->fs, sizeof(v->fs), "(not probed)");
	} else if (!E4_BLKID->probe_set_device(pr, fd, 0, (blkid_loff_t)len) &&
		   !E4_BLKID->probe_enable_superblocks(pr, 1) &&
		   !E4_BLKID->probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE) &&
		   E4_BLKID->do_safeprobe(pr) == 0 &&
		   !E4_BLKID->probe_lookup_value(pr, "TYPE", &type, NULL) && type) {
		snprintf(v->fs, sizeof(v->fs), "%s", type);
	}
	if (pr)
		E4_BLKID->free_probe(pr);
	if (fd >= 0)
		close(fd);
	free(buf);
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
	inodes = e4_le32(sb);
	log_block = e4_le32(sb + 0x18);
	blocks_per_group = e4_le32(sb + 0x20);
	inodes_per_group = e4_le32(sb + 0x28);
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

enum e4_status e4_volumes_read(struct e4_source *disk, struct e4_volume_table *t,
			       char *why, size_t whylen)
{
	static const unsigned int sizes[] = { 512, 4096 };
	uint8_t mbr[512];
	int protective = 0, found = 0;

	memset(t, 0, sizeof(*t));
	t->disk_size = disk->size;
	t->v = calloc(MAX_PARTITIONS, sizeof(*t->v));
	if (!t->v) {
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	if (disk->size < sizeof(mbr))
		return E4_OK;
	if (e4_source_read(disk, 0, mbr, sizeof(mbr)) != E4_OK) {
		snprintf(why, whylen, "cannot read the disk's first sector");
		e4_volumes_free(t);
		return E4_IO;
	}
	/* Linux and libblkid: no table unless signed, and every boot
	 * indicator 0x00 or 0x80 (a FAT boot sector is signed too) */
	if (mbr[510] != 0x55 || mbr[511] != 0xaa)
		return E4_OK;
	for (int i = 0; i < 4; i++) {
		uint8_t boot = mbr[446 + 16 * i];

		if (boot != 0 && boot != 0x80)
			return E4_OK;
		protective |= mbr[446 + 16 * i + 4] == 0xee;
	}
	/* a GPT only behind a protective MBR, as Linux reads it */
	for (size_t k = 0; protective && !found && k < sizeof(sizes) / sizeof(sizes[0]); k++)
		found = disk->size / sizes[k] > 2 && read_gpt(disk, t, sizes[k]);
	if (protective && !found)
		note(t, "a protective MBR (type 0xee) without a GPT header: the MBR is listed");
	if (!found)
		read_mbr(disk, t, mbr);
	overlaps(t);
	qsort(t->v, t->n, sizeof(*t->v), by_start);
	for (size_t i = 0, probed = 0; i < t->n; i++) {
		struct e4_volume *v = &t->v[i];

		if (v->extended || !v->size)
			continue;
		v->ext = v->size >= 2048 && e4_has_ext_superblock(disk, v->start);
		if (probed++ < FS_PROBED)
			probe_fs(disk, v);
		else
			snprintf(v->fs, sizeof(v->fs), "(not probed)");
	}
	return E4_OK;
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

	if (k > 0 && (size_t)k < len && v->missing) {
		int more = snprintf(s + k, len - (size_t)k, "; %llu more past the end of the image",
				    (unsigned long long)v->missing);

		k = more < 0 ? -1 : k + more;
	}
	if (k > 0 && (size_t)k < len)
		snprintf(s + k, len - (size_t)k, "%s%s)", v->why_odd[0] ? "; odd: " : "",
			 v->why_odd);
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
		k = snprintf(why + used, whylen - used, "; --partition %u: start %llu bytes, %llu bytes, %s%s%s",
			     v->index, (unsigned long long)v->start,
			     (unsigned long long)v->size, v->fs[0] ? v->fs : "ext",
			     v->why_odd[0] ? ", odd: " : "", v->why_odd);
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

uint64_t e4_volumes_shortfall(const struct e4_volume_table *t, char *what,
			      size_t len)
{
	uint64_t ss = t->sector_size ? t->sector_size : 512, have = t->disk_size / ss;
	uint64_t last = t->gpt_backup > t->gpt_last_usable ? t->gpt_backup : t->gpt_last_usable;
	uint64_t missing;

	if (strcmp(t->scheme, "gpt") || last < have)
		return 0;
	missing = last - have + 1 <= UINT64_MAX / ss ? (last - have + 1) * ss : UINT64_MAX;
	if (what)
		snprintf(what, len, "the disk is %llu bytes short of what its GPT declares: its backup header at LBA %llu, its last usable LBA %llu, the image ends after LBA %llu (%llu sectors of %llu)",
			 (unsigned long long)missing, (unsigned long long)t->gpt_backup,
			 (unsigned long long)t->gpt_last_usable,
			 (unsigned long long)(have ? have - 1 : 0),
			 (unsigned long long)have, (unsigned long long)ss);
	return missing;
}

static enum e4_status choose(struct e4_source *disk, const struct e4_volume_choice *c,
			     uint64_t *off, uint64_t *size, char *desc,
			     size_t desclen, char *why, size_t whylen,
			     char *shortfall, size_t shortlen)
{
	struct e4_volume_table t;
	enum e4_status st;
	size_t found = 0, pick = 0, odd = 0;
	int whole = 0, picked = 0;

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
	/* an odd entry only when named (what is odd is in desc) */
	for (size_t i = 0; i < t.n; i++) {
		if (!c->partition && t.v[i].ext && (t.v[i].odd & E4_VOL_BLOCKING)) {
			odd++;
			continue;
		}
		if (c->partition ? t.v[i].index == c->partition : t.v[i].ext) {
			if (!found++)
				pick = i;
		}
	}
	if (c->partition && found && !t.v[pick].size) {
		snprintf(why, whylen, "partition %u (%s, sector %llu): %s",
			 c->partition, t.scheme, (unsigned long long)t.v[pick].first,
			 t.v[pick].why_odd[0] ? t.v[pick].why_odd : "nothing of it in the image");
		st = E4_NOT_FOUND;
	} else if (c->partition && !found) {
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
	} else if (!found && odd) {
		int k = snprintf(why, whylen, "no ext4 superblock at offset 0, and the ext4 partitions of its %s table are odd: choose one with --partition N",
				 t.scheme);

		if (k > 0)
			list_ext(&t, why, whylen, (size_t)k);
		st = E4_NOT_FOUND;
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
		picked = 1;
	}
	if (st == E4_OK && shortlen) {
		int k = 0;

		if (e4_volumes_shortfall(&t, shortfall, shortlen))
			k = (int)strlen(shortfall);
		if (picked && t.v[pick].missing && (size_t)k < shortlen)
			snprintf(shortfall + k, shortlen - (size_t)k,
				 "%spartition %u: %llu bytes of it lie past the end of the image",
				 k ? "; " : "", t.v[pick].index,
				 (unsigned long long)t.v[pick].missing);
	}
	e4_volumes_free(&t);
	return st;
}

enum e4_status e4_volume_select(struct e4_source *disk,
				const struct e4_volume_choice *c,
				struct e4_source **vol, char *desc,
				size_t desclen, char *why, size_t whylen)
{
	return e4_volume_select_short(disk, c, vol, desc, desclen, why, whylen,
				      NULL, 0);
}

enum e4_status e4_volume_select_short(struct e4_source *disk,
				      const struct e4_volume_choice *c,
				      struct e4_source **vol, char *desc,
				      size_t desclen, char *why, size_t whylen,
				      char *shortfall, size_t shortlen)
{
	uint64_t off = 0, size = 0;
	enum e4_status st;

	*vol = NULL;
	if (shortlen)
		shortfall[0] = 0;
	st = choose(disk, c, &off, &size, desc, desclen, why, whylen, shortfall,
		    shortlen);
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

/* The volumes of a disk: every entry of its partition table (GPT entries
 * in use; MBR primary, extended and logical ones through the EBR chain),
 * each marked with what is odd about it, what each partition holds (as
 * libblkid's filesystem probers see its head), and which one a command
 * uses. */
#ifndef E4_VOLUME_H
#define E4_VOLUME_H

#include <stddef.h>
#include <stdint.h>
#include "source.h"

/* What is odd about an entry (e4_volume.odd).  An entry with any of
 * E4_VOL_BLOCKING is never chosen without --partition N. */
#define E4_VOL_OUTSIDE    0x001u /* starts at or past the end of the image */
#define E4_VOL_UNUSABLE   0x002u /* outside the GPT's usable area */
#define E4_VOL_OVERLAP    0x004u /* overlaps another entry */
#define E4_VOL_BACKWARDS  0x008u /* ends before it starts, or zero length */
#define E4_VOL_LOOP       0x010u /* its EBR links back into the chain */
#define E4_VOL_NOT_IN_EXT 0x020u /* a logical one outside its extended one */
#define E4_VOL_BAD_CRC    0x040u /* from a GPT whose checksums fail */
#define E4_VOL_NOT_LINUX  0x080u /* an EBR entry Linux skips (3rd, 4th) */
#define E4_VOL_CUT_SHORT  0x100u /* runs past the end of the image (missing) */
#define E4_VOL_BLOCKING   (0x0ffu)

struct e4_volume {
	unsigned int index;   /* the table's partition number (Linux's sdaN);
			       * entries Linux skips are numbered after */
	char slot[16];        /* where it is in the table, as mmls says:
			       * "000:002" (MBR table:entry), "003" (GPT) */
	uint64_t first, last; /* the table's own sectors (of sector_size),
			       * last inclusive; last < first when the entry
			       * runs backwards */
	uint64_t start, size; /* bytes; size is what the image holds of it */
	char type[40];        /* GPT type GUID, or the MBR type "0x83" */
	char name[224];       /* GPT partition name (72 UTF-16 units), or "" */
	char fs[24];          /* what libblkid finds there ("" nothing known) */
	int ext;              /* an ext2/3/4 superblock at start + 1024 */
	int extended;         /* an MBR extended partition (holds logical ones) */
	int logical;          /* an MBR logical partition */
	uint64_t missing;     /* bytes of it past the end of the image (size
			       * is clipped to the image) */
	unsigned int odd;     /* E4_VOL_* */
	char why_odd[200];    /* what is odd, in words, or "" */
};

struct e4_volume_table {
	char scheme[8];       /* "gpt", "dos", or "" (no partition table) */
	char id[40];          /* the disk's GUID or MBR identifier */
	unsigned int sector_size; /* of the table: 512 or 4096 */
	uint64_t disk_size;
	struct e4_volume *v;  /* by start */
	size_t n;
	char note[256];       /* what was not read, or "" */
	uint64_t gpt_backup, gpt_last_usable; /* the GPT header's alternate
			       * (backup) LBA (its own when it is the backup)
			       * and last usable LBA; 0 without a GPT */
};

/* How many bytes of the disk its GPT declares (through its backup header
 * and its last usable LBA) lie past the end of the image, 0 when none;
 * what, when not NULL, then says so in words. */
uint64_t e4_volumes_shortfall(const struct e4_volume_table *t, char *what,
			      size_t len);

/* Read the partition table of disk (not taken over).  A disk without one
 * gives n = 0 and scheme "".  E4_NOMEM or E4_IO with why. */
enum e4_status e4_volumes_read(struct e4_source *disk, struct e4_volume_table *t,
			       char *why, size_t whylen);
void e4_volumes_free(struct e4_volume_table *t);

/* Whether an ext2/3/4 superblock is at off + 1024 of s: its magic and
 * fields ext4 needs to be nonzero and in range (so that two bytes of a
 * partition name do not pass for one). */
int e4_has_ext_superblock(struct e4_source *s, uint64_t off);

/* Which volume of a disk to use: partition (> 0), or offset when
 * by_offset, else chosen: the disk itself when it starts with an ext
 * superblock, else its only ext partition. */
struct e4_volume_choice {
	unsigned int partition;
	int by_offset;
	uint64_t offset;
};

/* The volume c chooses from disk (taken over, also on failure), as a
 * window of it; desc says which ("partition 2 of gpt, bytes ...").  An
 * entry with an E4_VOL_BLOCKING mark is not chosen unless --partition
 * names it and it starts inside the image (desc then says what is odd). On
 * failure why says what failed (an index out of range, no ext4 at an
 * offset, several ext4 partitions listed) and the result is
 * E4_NOT_FOUND, E4_INVALID (several), E4_NOMEM or E4_IO. */
enum e4_status e4_volume_select(struct e4_source *disk,
				const struct e4_volume_choice *c,
				struct e4_source **vol, char *desc,
				size_t desclen, char *why, size_t whylen);

/* The same; short, when not NULL (shortlen > 0), says what of the disk
 * (e4_volumes_shortfall) and of the chosen partition lies past the end of
 * the image, or is "". */
enum e4_status e4_volume_select_short(struct e4_source *disk,
				      const struct e4_volume_choice *c,
				      struct e4_source **vol, char *desc,
				      size_t desclen, char *why, size_t whylen,
				      char *shortfall, size_t shortlen);

#endif

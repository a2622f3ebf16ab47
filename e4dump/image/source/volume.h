/* The volumes of a disk: its partition table as libblkid reads it (GPT,
 * MBR with extended and logical partitions), what each partition holds,
 * and which one a command uses. */
#ifndef E4_VOLUME_H
#define E4_VOLUME_H

#include <stddef.h>
#include <stdint.h>
#include "source.h"

struct e4_volume {
	unsigned int index;   /* the table's partition number (Linux's sdaN) */
	uint64_t start, size; /* bytes */
	char type[40];        /* GPT type GUID, or the MBR type "0x83" */
	char name[224];       /* GPT partition name (72 UTF-16 units), or "" */
	char fs[24];          /* what libblkid finds there ("" nothing known) */
	int ext;              /* an ext2/3/4 superblock at start + 1024 */
	int extended;         /* an MBR extended partition (holds logical ones) */
	int logical;          /* an MBR logical partition */
	uint64_t missing;     /* bytes of it past the end of the image (size
			       * is clipped to the image) */
};

struct e4_volume_table {
	char scheme[8];       /* "gpt", "dos", or "" (no partition table) */
	char id[40];          /* the disk's GUID or MBR identifier */
	unsigned int sector_size; /* of the table: 512 or 4096 */
	uint64_t disk_size;
	struct e4_volume *v;  /* by start */
	size_t n;
	char note[256];       /* what was not read, or "" */
};

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
 * window of it; desc says which ("partition 2 of gpt, bytes ...").  On
 * failure why says what failed (an index out of range, no ext4 at an
 * offset, several ext4 partitions listed) and the result is
 * E4_NOT_FOUND, E4_INVALID (several), E4_NOMEM or E4_IO. */
enum e4_status e4_volume_select(struct e4_source *disk,
				const struct e4_volume_choice *c,
				struct e4_source **vol, char *desc,
				size_t desclen, char *why, size_t whylen);

#endif

/* The body file writer (bodyfile.h). */
#include <inttypes.h>
#include <string.h>
#include "bodyfile.h"

void bodyfile_init(struct bodyfile *b, FILE *f, const char *prefix, int nanoseconds)
{
	b->f = f;
	b->prefix = prefix ? prefix : "";
	b->prefix_len = strlen(b->prefix);
	/* as fls -m: "/mnt/" and "/mnt" give "/mnt/a", "/" gives "/a" */
	while (b->prefix_len && b->prefix[b->prefix_len - 1] == '/')
		b->prefix_len--;
	b->nanoseconds = nanoseconds;
}

/* TSK's letter of a type: tsk_fs_name_type_str and tsk_fs_meta_make_ls
 * agree on these for ext4's types. */
char bodyfile_mode_letter(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: return 'd';
	case E4_S_IFREG: return 'r';
	case E4_S_IFLNK: return 'l';
	case E4_S_IFCHR: return 'c';
	case E4_S_IFBLK: return 'b';
	case E4_S_IFIFO: return 'p';
	case E4_S_IFSOCK: return 'h';
	default: return '-';
	}
}

char bodyfile_ft_letter(int ft)
{
	static const char l[] = "-rdcbphl";   /* EXT2_FT_UNKNOWN .. SYMLINK */

	return ft >= 0 && ft < 8 ? l[ft] : '-';
}

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\x7c", f);
		else
			putc(*s, f);
	}
}

static void put_time(const struct bodyfile *b, const struct e4_timestamp *t, char sep)
{
	if (!t)
		fprintf(b->f, "0%c", sep);
	else if (b->nanoseconds && t->sec < 0 && t->nsec)
		/* ext4 keeps a negative second plus positive nanoseconds:
		 * -1 s + 0.5 s is -0.5, written as one decimal number */
		fprintf(b->f, "-%" PRId64 ".%09" PRIu32 "%c", -(t->sec + 1),
			1000000000u - t->nsec, sep);
	else if (b->nanoseconds)
		fprintf(b->f, "%" PRId64 ".%09" PRIu32 "%c", t->sec, t->nsec, sep);
	else
		fprintf(b->f, "%" PRId64 "%c", t->sec, sep);
}

void bodyfile_event(const struct bodyfile *b, const char *name,
		    const struct e4_timestamp *when)
{
	fputs("0|", b->f);
	put_escaped(b->f, name);
	fputs("|0|-/----------|0|0|0|0|0|", b->f);
	put_time(b, when, '|');
	put_time(b, NULL, '\n');
}

void bodyfile_record(const struct bodyfile *b, const struct record *r)
{
	static const char rwx[] = "rwxrwxrwx";
	const struct e4_inode *in = r->have_inode ? &r->inode : NULL;
	char mode[13];

	fputs("0|", b->f);
	fwrite(b->prefix, 1, b->prefix_len, b->f);
	put_escaped(b->f, r->path);
	if (r->have_name && (r->name_state == E4_NAME_NOKEY || r->name_state == E4_NAME_BAD))
		fputs(" (encrypted, no key)", b->f);
	if (in && E4_ISLNK(in->mode) && r->target) {
		fputs(" -> ", b->f);
		put_escaped(b->f, r->target);
	}
	if (r->deleted)
		fputs(r->allocated == 1 ? " (deleted-realloc)" : " (deleted)", b->f);
	mode[0] = r->name_type < 0 && in ? bodyfile_mode_letter(in->mode) :
		  bodyfile_ft_letter(r->name_type);
	mode[1] = '/';
	if (!in) {
		fprintf(b->f, "|%" PRIu32 "|%c/----------|0|0|0|0|0|0|0\n", r->ino, mode[0]);
		return;
	}
	mode[2] = bodyfile_mode_letter(in->mode);
	for (int i = 0; i < 9; i++)
		mode[3 + i] = (in->mode & (0400 >> i)) ? rwx[i] : '-';
	if (in->mode & 04000)
		mode[5] = (in->mode & 0100) ? 's' : 'S';
	if (in->mode & 02000)
		mode[8] = (in->mode & 0010) ? 's' : 'S';
	if (in->mode & 01000)
		mode[11] = (in->mode & 0001) ? 't' : 'T';
	mode[12] = 0;
	fprintf(b->f, "|%" PRIu32 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|", r->ino, mode,
		in->uid, in->gid, r->size);
	put_time(b, &in->atime, '|');
	put_time(b, &in->mtime, '|');
	put_time(b, &in->ctime, '|');
	put_time(b, in->has_crtime ? &in->crtime : NULL, '\n');
}

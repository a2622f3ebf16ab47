#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "content.h"
#include "dirlist.h"
#include "report.h"

struct ls_state {
	struct keyring *kr;
	const struct options *o;
	int problems;
	uint8_t *on_path;  /* -R: bitmap of the directories being listed */
	uint32_t ninodes;
};

/* -R: a directory that is its own ancestor (a loop in a hostile image) is
 * not entered again: the paths of a loop grow at every level, and 4096
 * levels of them need gigabytes.  Returns 1 for such a directory, else
 * marks it (and path_leave() unmarks it). */
static int path_enter(struct ls_state *s, ext2_ino_t dir)
{
	if (!s->on_path || dir > s->ninodes)
		return 0;
	if (s->on_path[dir / 8] & (1u << (dir % 8)))
		return 1;
	s->on_path[dir / 8] |= (uint8_t)(1u << (dir % 8));
	return 0;
}

static void path_leave(struct ls_state *s, ext2_ino_t dir)
{
	if (s->on_path && dir <= s->ninodes)
		s->on_path[dir / 8] &= (uint8_t)~(1u << (dir % 8));
}

static char type_char(uint16_t mode)
{
	if (LINUX_S_ISDIR(mode)) return 'd';
	if (LINUX_S_ISREG(mode)) return '-';
	if (LINUX_S_ISLNK(mode)) return 'l';
	if (LINUX_S_ISCHR(mode)) return 'c';
	if (LINUX_S_ISBLK(mode)) return 'b';
	if (LINUX_S_ISFIFO(mode)) return 'p';
	if (LINUX_S_ISSOCK(mode)) return 's';
	return '?';
}

/* shown: the escaped name or relative path to print. */
static void print_entry(struct ls_state *s, ext2_ino_t ino, const char *shown,
			const char *path, int locked)
{
	struct ext2_inode_large inode;
	int64_t sec;
	long nsec;
	time_t t;
	struct tm tm;
	char when[32] = "?";

	if (!s->o->long_format) {
		printf("%s\n", shown);
		return;
	}
	if (img_read_inode(s->kr->im, ino, &inode)) {
		s->problems = 1;
		printf("%10u ? ????          ? ?                   %s\n", ino, shown);
		return;
	}
	img_inode_mtime(&inode, &sec, &nsec);
	t = (time_t)sec;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%10u %c %04o %12llu %s %s", ino, type_char(inode.i_mode),
	       inode.i_mode & 07777,
	       (unsigned long long)img_inode_size(&inode), when, shown);
	if (LINUX_S_ISLNK(inode.i_mode) && !locked) {
		char *target;
		size_t len;

		if (symlink_target(s->kr, ino, &inode, path, &target, &len) == 0) {
			char *esc = malloc(4 * len + 1);

			if (esc) {
				escape_name((unsigned char *)target, len, esc);
				printf(" -> %s", esc);
				free(esc);
			}
			free(target);
		} else {
			s->problems = 1;
		}
	}
	printf("\n");
}

static void list_dir(struct ls_state *s, ext2_ino_t dir, const char *path,
		     const char *rel, int depth)
{
	struct dir_listing l;

	if (depth > 4096) {
		report_error("%s: directories nested too deep (loop?)", path);
		s->problems = 1;
		return;
	}
	if (path_enter(s, dir)) {
		report_error("%s (inode %u): directory loop: contains its own ancestor",
			     path, dir);
		s->problems = 1;
		return;
	}
	if (dir_list(s->kr, dir, path, &l)) {
		s->problems = 1;
		path_leave(s, dir);
		return;
	}
	if (l.broken)
		s->problems = 1;
	/* Without a key, no-key names are the listing (as readdir gives
	 * them); the missing key was reported once. */
	for (size_t i = 0; i < l.n; i++) {
		struct dent *d = &l.v[i];
		char esc[4 * 256 + 1];
		size_t plen = strlen(path), rlen = strlen(rel);
		char *cpath, *crel;

		if (d->state == NAME_BAD)
			s->problems = 1;
		escape_name((unsigned char *)d->name, d->name_len, esc);
		cpath = malloc(plen + strlen(esc) + 2);
		crel = malloc(rlen + strlen(esc) + 2);
		if (!cpath || !crel) {
			free(cpath);
			free(crel);
			s->problems = 1;
			break;
		}
		sprintf(cpath, "%s%s%s", path, plen && path[plen - 1] == '/' ? "" : "/", esc);
		sprintf(crel, "%s%s%s", rel, rlen ? "/" : "", esc);
		print_entry(s, d->ino, s->o->recursive ? crel : esc, cpath,
			    l.encrypted && !l.have_key);
		if (s->o->recursive && d->ino != dir &&
		    (d->ftype == EXT2_FT_DIR || d->ftype == EXT2_FT_UNKNOWN)) {
			struct ext2_inode_large inode;

			if (!img_read_inode(s->kr->im, d->ino, &inode) &&
			    LINUX_S_ISDIR(inode.i_mode))
				list_dir(s, d->ino, cpath, crel, depth + 1);
		}
		free(cpath);
		free(crel);
	}
	dir_listing_free(&l);
	path_leave(s, dir);
}

int cmd_ls(const struct options *o)
{
	struct img im;
	struct keyring kr;
	struct ls_state s = { &kr, o, 0, NULL, 0 };
	const char *path = o->n_args > 1 ? o->args[1] : "/";
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	int rc;

	rc = session_open(o, &im, &kr);
	if (rc)
		return rc;
	kr.listing = 1;
	if (o->recursive) {
		s.ninodes = im.fs->super->s_inodes_count;
		s.on_path = calloc((size_t)s.ninodes / 8 + 1, 1);
		if (!s.on_path) {
			report_error("%s: out of memory", im.path);
			session_close(&im, &kr);
			return EXIT_FATAL;
		}
	}
	if (path_lookup(&kr, path, &ino) || img_read_inode(&im, ino, &inode)) {
		free(s.on_path);
		session_close(&im, &kr);
		return EXIT_SKIPPED;
	}
	if (LINUX_S_ISDIR(inode.i_mode))
		list_dir(&s, ino, path, "", 0);
	else
		print_entry(&s, ino, path, path, 0);
	fflush(stdout);
	free(s.on_path);
	session_close(&im, &kr);
	return s.problems ? EXIT_SKIPPED : EXIT_DONE;
}

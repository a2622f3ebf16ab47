/* Finding entries by name, and paths from the root. */
#include <stdlib.h>
#include <string.h>
#include "casefold.h"
#include "fs_private.h"
#include "dir.h"
#include "escape.h"
#include "nokey.h"

size_t e4_dir_find(struct e4_fs *fs, const struct e4_dir *d,
		   const uint8_t *name, size_t name_len)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	size_t n = e4_dir_count(d), lo = 0, hi = n;
	const struct ext2fs_nls_table *enc;
	struct e4_entry e;

	/* the listing is sorted by shown name: the first exact match */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, k;
		int c;

		e4_dir_get(d, mid, &e);
		k = e.name_len < name_len ? e.name_len : name_len;
		c = memcmp(e.name, name, k);
		if (!c)
			c = (e.name_len > name_len) - (e.name_len < name_len);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n) {
		e4_dir_get(d, lo, &e);
		if (e.name_len == name_len && !memcmp(e.name, name, name_len))
			return lo;
	}
	/* casefolded: equal after folding, as the kernel's lookup finds it */
	enc = f->casefolded ? e4_fs_casefold_table(fs) : NULL;
	for (size_t i = 0; enc && i < n; i++) {
		e4_dir_get(d, i, &e);
		if ((e.state == E4_NAME_PLAIN || e.state == E4_NAME_DECRYPTED) &&
		    !ext2fs_casefold_cmp(enc, e.name, e.name_len, name, name_len))
			return i;
	}
	/* with the key, the no-key name it shows without */
	if (f->encrypted && f->have_key) {
		for (size_t i = 0; i < n; i++) {
			char nk[E4_NOKEY_NAME_MAX + 1];

			e4_dir_nokey_name(fs, d, i, nk);
			if (strlen(nk) == name_len && !memcmp(nk, name, name_len))
				return i;
		}
	}
	return n;
}

static enum e4_status lookup(struct e4_fs *fs, const char *path,
			     const char *shown, uint32_t *out);

enum e4_status e4_path_lookup(struct e4_fs *fs, const char *path, uint32_t *ino)
{
	enum e4_status st;
	char *shown = malloc(E4_ESCAPE_SIZE(strlen(path)));

	*ino = 0;
	if (!shown)
		return E4_NOMEM;
	/* messages show the path escaped, as names from the image are */
	e4_escape((const uint8_t *)path, strlen(path), shown, 0);
	st = lookup(fs, path, shown, ino);
	free(shown);
	return st;
}

/* debugfs's "<N>" names inode N: the length of such a prefix of p
 * (followed by its end or '/'), with *ino set; else 0. */
static size_t inode_prefix(const char *p, uint64_t *ino)
{
	size_t i = 1;

	*ino = 0;
	if (p[0] != '<' || p[1] < '0' || p[1] > '9')
		return 0;
	for (; p[i] >= '0' && p[i] <= '9'; i++) {
		*ino = *ino * 10 + (uint64_t)(p[i] - '0');
		if (*ino > UINT32_MAX)
			return 0;
	}
	if (p[i] != '>' || (p[i + 1] && p[i + 1] != '/'))
		return 0;
	return i + 1;
}

static enum e4_status lookup(struct e4_fs *fs, const char *path,
			     const char *shown, uint32_t *out)
{
	uint32_t cur = EXT2_ROOT_INO;
	const char *p = path;
	enum e4_status st = E4_OK;
	uint64_t n_ino;
	size_t skip = inode_prefix(path, &n_ino);

	if (skip) {
		if (n_ino < 1 || n_ino > fs->info.inodes_count) {
			e4_report(fs, E4_DIAG_ERROR, E4_NOT_FOUND, 0, shown,
				  "no inode %llu (the filesystem has inodes 1 to %u)",
				  (unsigned long long)n_ino, fs->info.inodes_count);
			return E4_NOT_FOUND;
		}
		cur = (uint32_t)n_ino;
		p += skip;
	}

	while (*p) {
		size_t n = strcspn(p, "/"), i;
		struct e4_inode in;
		struct e4_dir *d;
		struct e4_entry e;

		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		st = e4_inode_read(fs, cur, shown, &in);
		if (st != E4_OK)
			return st;
		if (!E4_ISDIR(in.mode)) {
			e4_report(fs, E4_DIAG_ERROR, E4_NOT_DIR, cur, shown,
				  "a component before the last is not a directory");
			return E4_NOT_DIR;
		}
		st = e4_dir_list(fs, &in, shown, E4_LIST_QUIET, &d);
		if (st != E4_OK)
			return st;
		i = e4_dir_find(fs, d, (const uint8_t *)p, n);
		if (i == e4_dir_count(d)) {
			char *comp = malloc(E4_ESCAPE_SIZE(n));

			if (comp)
				e4_escape((const uint8_t *)p, n, comp, E4_ESCAPE_SLASH);
			e4_report(fs, E4_DIAG_ERROR, E4_NOT_FOUND, 0, shown,
				  "no such entry \"%s\"", comp ? comp : "?");
			free(comp);
			e4_dir_free(d);
			return E4_NOT_FOUND;
		}
		e4_dir_get(d, i, &e);
		cur = e.ino;
		e4_dir_free(d);
		p += n + (p[n] == '/');
	}
	*out = cur;
	return E4_OK;
}

/* e4dump QEMU guest: directory listings in readdir order, and paths written
 * with the manifest's plaintext names resolved to the names readdir returns
 * now (no-key names without the key). */
#include "guest.h"

/* all entries of /mnt/REL except . and .., in readdir order */
struct dent *list_dir(const char *rel, size_t *count)
{
	char p[4200];
	DIR *d;
	struct dirent *de;
	struct dent *v = NULL;
	size_t n = 0, cap = 0;

	abs_path(p, sizeof(p), rel);
	d = opendir(p);
	if (!d)
		FAILE("opendir %s", p);
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				FAILE("readdir %s", p);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				fail("out of memory (readdir)");
		}
		v[n].name = xstrdup(de->d_name);
		v[n].type = de->d_type;
		v[n].ino = de->d_ino;
		if (v[n].type == DT_UNKNOWN) {
			char q[4200];
			struct stat st;

			join(q, sizeof(q), p, de->d_name);
			if (lstat(q, &st) == 0)
				v[n].type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
					    S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
		}
		n++;
	}
	closedir(d);
	*count = n;
	return v;
}

void free_list(struct dent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* Turn a path written with the plaintext names of the manifest into a path
 * that works now: components that cannot be looked up by name (an encrypted
 * directory without its key) are replaced by the name readdir returns for the
 * inode the manifest entry had.  Records "resolved PLAINHEX PATHHEX" when the
 * path changed. */
void resolve(const char *plain, char *out, size_t outsz, int lineno)
{
	char cur[4096] = "", pre[4096] = "", cand[4096], p[4200];
	const char *c = plain, *slash;
	struct stat st;
	int changed = 0;

	abs_path(p, sizeof(p), plain);
	if (lstat(p, &st) == 0) {
		if ((size_t)snprintf(out, outsz, "%s", plain) >= outsz)
			fail("path too long");
		return;
	}
	for (;;) {
		char comp[256];
		size_t len;

		slash = strchr(c, '/');
		len = slash ? (size_t)(slash - c) : strlen(c);
		if (len >= sizeof(comp))
			fail("line %d: path component too long", lineno);
		memcpy(comp, c, len);
		comp[len] = '\0';
		if ((size_t)snprintf(pre, sizeof(pre), "%.*s", (int)(c - plain + len), plain) >=
		    sizeof(pre))
			fail("path too long");
		if (cur[0])
			join(cand, sizeof(cand), cur, comp);
		else
			snprintf(cand, sizeof(cand), "%s", comp);
		abs_path(p, sizeof(p), cand);
		if (lstat(p, &st) == 0) {
			memcpy(cur, cand, sizeof(cur));
		} else {
			struct entry *e = find_entry(pre);
			struct dent *v;
			size_t n, i;

			if (!e || !e->ino)
				fail("line %d: cannot resolve %s: %s/%s not found (errno %d) and "
				     "%s is not in the manifest", lineno, plain, MNT, cand, errno, pre);
			v = list_dir(cur[0] ? cur : ".", &n);
			for (i = 0; i < n && v[i].ino != e->ino; i++)
				;
			if (i == n)
				fail("line %d: cannot resolve %s: no entry with inode %" PRIu64
				     " in %s/%s", lineno, plain, e->ino, MNT, cur);
			if (cur[0])
				join(cand, sizeof(cand), cur, v[i].name);
			else
				snprintf(cand, sizeof(cand), "%s", v[i].name);
			memcpy(cur, cand, sizeof(cur));
			free_list(v, n);
			changed = 1;
		}
		if (!slash)
			break;
		c = slash + 1;
	}
	if ((size_t)snprintf(out, outsz, "%s", cur) >= outsz)
		fail("path too long");
	if (changed) {
		man_add("resolved ");
		man_hex(plain, strlen(plain));
		man_add(" ");
		man_hex(cur, strlen(cur));
		man_add("\n");
	}
}

/* index of the first regular file in v[0..n), for a command that needs one */
size_t first_regular(const struct dent *v, size_t n, const char *cmd,
		     const char *rel, int lineno)
{
	size_t i;

	for (i = 0; i < n && v[i].type != DT_REG; i++)
		;
	if (i == n)
		fail("line %d: %s: no regular file in %s/%s", lineno, cmd, MNT, rel);
	return i;
}

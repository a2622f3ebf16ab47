/* libe4dump by example (the README shows this program): open an ext4
 * image read-only with a master key, list every path in it, and copy one
 * file out, decrypted.
 *
 *   cc example.c $(pkg-config --cflags --libs e4dump) -o example
 *   ./example IMAGE KEYFILE PATH OUTFILE
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <e4dump/e4dump.h>

/* The library never prints: problems come here. */
static void diag(void *arg, const struct e4_diag *d)
{
	(void)arg;
	if (d->level >= E4_DIAG_WARNING)
		fprintf(stderr, "example: %s%s%s\n", d->path ? d->path : "",
			d->path ? ": " : "", d->message);
}

/* Called for every entry of the tree, depth first. */
static enum e4_walk_action show(void *arg, const struct e4_walk_node *n)
{
	(void)arg;
	if (n->entry)
		printf("%s\n", n->rel);
	return E4_WALK_CONTINUE;
}

/* Receives the file's data, decrypted, at increasing offsets. */
static int sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	FILE *f = arg;

	return fseeko(f, (off_t)off, SEEK_SET) || fwrite(data, 1, len, f) != len;
}

static struct e4_keystore *load_key(const char *path)
{
	struct e4_keystore *ks = e4_keystore_new();
	uint8_t buf[512], key[E4_MAX_KEY_SIZE];
	size_t n, len;
	const char *why;
	FILE *f = fopen(path, "rb");

	if (!ks || !f)
		return NULL;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (e4_keyfile_parse(buf, n, key, &len, &why) != E4_OK ||
	    e4_keystore_add(ks, key, len, path) != E4_OK) {
		e4_keystore_free(ks);
		ks = NULL;
	}
	e4_wipe(buf, sizeof(buf));
	e4_wipe(key, sizeof(key));
	return ks;
}

int main(int argc, char **argv)
{
	struct e4_fs_options opt;
	struct e4_walk_options wo;
	struct e4_walk_visitor v;
	struct e4_keystore *keys;
	struct e4_fs *fs;
	struct e4_inode in;
	struct e4_file *file;
	uint32_t ino;
	FILE *out;
	int rc = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: example IMAGE KEYFILE PATH OUTFILE\n");
		return 2;
	}
	keys = load_key(argv[2]);
	if (!keys)
		return 2;
	memset(&opt, 0, sizeof(opt));
	opt.keys = keys;
	opt.diag = diag;
	if (e4_fs_open(&fs, argv[1], &opt) != E4_OK) {
		e4_keystore_free(keys);
		return 2;
	}
	memset(&wo, 0, sizeof(wo));
	wo.recursive = 1;
	memset(&v, 0, sizeof(v));
	v.entry = show;
	e4_walk(fs, E4_ROOT_INO, "/", &wo, &v, NULL, NULL);
	if (e4_path_lookup(fs, argv[3], &ino) == E4_OK &&
	    e4_inode_read(fs, ino, argv[3], &in) == E4_OK &&
	    e4_file_open(fs, &in, argv[3], &file) == E4_OK) {
		out = fopen(argv[4], "wb");
		if (out && e4_file_stream(file, sink, out) == E4_OK &&
		    !ftruncate(fileno(out), (off_t)e4_file_size(file)))
			rc = 0;
		if (out && fclose(out))
			rc = 1;
		e4_file_close(file);
	}
	e4_fs_close(fs);
	e4_keystore_free(keys);
	return rc;
}

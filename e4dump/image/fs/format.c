/* The one name-format decision of a filesystem, and its casefolding.
 *
 * The 2015 format differs from Linux 6.1's in two ways a reader can see
 * without the key: stored name lengths (max(len, 16) against the padding
 * rule) and the htree hash (over the 2015 no-key name, not over the
 * ciphertext).  The inode tables are read in order until one of them
 * decides: an htree directory whose leaf hashes fit one rule only, or two
 * stored lengths that only the 2015 rule makes.  An image with a large
 * directory is decided at its first one; only an image of small
 * directories is read to the end (then it is Linux 6.1). */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "casefold.h"
#include "dirblock.h"
#include "fs_private.h"
#include "nokey.h"

/* Two stored lengths that Linux 6.1's padding cannot produce make the
 * 2015 format (one alone is taken as damage, which verify reports). */
#define FORMAT_2015_EVIDENCE 2
/* An htree vote counts this many leaf entries at least, at most the
 * second. */
#define HTREE_VOTE_MIN 4
#define HTREE_VOTE_MAX 16

#define DX_HASH_SIPHASH 6

int e4_dirhash(int version, const uint8_t *name, size_t len,
	       const uint32_t seed[4], uint32_t *hash, uint32_t *minor)
{
	ext2_dirhash_t h = 0, m = 0;

	if (len > INT32_MAX ||
	    ext2fs_dirhash2(version, (const char *)name, (int)len, NULL, 0,
			    seed, &h, &m))
		return -1;
	h &= ~1u;
	if (h == 0xfffffffeu) /* EXT4_HTREE_EOF_32BIT << 1 */
		h = 0xfffffffcu;
	*hash = h;
	*minor = m;
	return 0;
}

int e4_htree_entry_hash(int version, const uint32_t seed[4],
			enum e4_name_format format, const uint8_t *name,
			unsigned int len, uint32_t *hash)
{
	char nk[E4_NOKEY_2015_MAX + 1];
	uint32_t h = 0, minor = 0;
	const char *p = (const char *)name;
	int n = (int)len;

	if (format == E4_FORMAT_2015) {
		if (e4_nokey_name_2015(name, len, nk))
			return -1;
		p = nk;
		n = (int)strlen(nk);
	}
	if (e4_dirhash(version, (const uint8_t *)p, (size_t)n, seed, &h, &minor))
		return -1;
	*hash = h;
	return 0;
}

struct vote {
	struct e4_fs *fs;
	unsigned int pad;       /* the directory's name padding */
	unsigned int lengths;   /* 2015-only stored lengths, all directories */
	enum e4_name_format result;
};

/* Read logical block lblk of a directory through its run list. */
static int read_lblk(struct e4_fs *fs, const struct e4_run *runs, size_t n,
		     uint64_t lblk, uint8_t *buf)
{
	for (size_t i = 0; i < n; i++)
		if (lblk >= runs[i].lblk && lblk < runs[i].lblk + runs[i].len)
			return e4_read_blocks(fs, runs[i].pblk + (lblk - runs[i].lblk),
					      1, buf) == E4_OK ? 0 : -1;
	return -1;
}

/* The hashes of up to HTREE_VOTE_MAX entries of block buf, against the
 * range [lo, hi] its dx entry gave it: which rule they all fit. */
static enum e4_name_format leaf_vote(struct e4_fs *fs, const uint8_t *buf,
				     int version, uint32_t lo, uint32_t hi)
{
	const uint32_t *seed = fs->ext2->super->s_hash_seed;
	struct e4_dirblock_rules rules = { fs->info.block_size,
					   fs->info.inodes_count, 0 };
	struct e4_dirent de;
	const char *why;
	size_t off = 0;
	unsigned int n = 0, fit61 = 0, fit15 = 0;

	while (n < HTREE_VOTE_MAX &&
	       e4_dirblock_next(buf, &rules, &off, &de, &why) == E4_OK) {
		uint32_t h;

		if (!de.inode || e4_dirent_is_dot(&de) || !de.name_len)
			continue;
		n++;
		if (!e4_htree_entry_hash(version, seed, E4_FORMAT_61, de.name,
					 de.name_len, &h) && h >= lo && h <= hi)
			fit61++;
		if (!e4_htree_entry_hash(version, seed, E4_FORMAT_2015, de.name,
					 de.name_len, &h) && h >= lo && h <= hi)
			fit15++;
	}
	if (n < HTREE_VOTE_MIN)
		return E4_FORMAT_AUTO;
	if (fit61 == n && fit15 < n)
		return E4_FORMAT_61;
	if (fit15 == n && fit61 < n)
		return E4_FORMAT_2015;
	return E4_FORMAT_AUTO;
}

/* An htree directory's vote: the leaf of its second dx entry (one level
 * down when the tree has two), whose hash range is narrower than all. */
static enum e4_name_format htree_vote(struct e4_fs *fs, const struct e4_inode *in)
{
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int bs = fs->info.block_size;
	int csum = ext2fs_has_feature_metadata_csum(sb);
	enum e4_name_format r = E4_FORMAT_AUTO;
	struct e4_dx_node root, node;
	struct e4_run *runs = NULL;
	size_t nruns = 0;
	uint8_t *buf = malloc(bs);
	uint32_t lo, hi, lblk, next;
	const char *why;
	int version;

	if (!buf || in->size < 2 * (uint64_t)bs ||
	    e4_inode_runs(fs, in, NULL, in->size / bs, &runs, &nruns) != E4_OK ||
	    read_lblk(fs, runs, nruns, 0, buf) ||
	    e4_dx_root_parse(buf, bs, csum, 2, &root, &why) != E4_OK ||
	    root.hash_version == DX_HASH_SIPHASH || root.count < 2)
		goto out;
	version = root.hash_version;
	if (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH)
		version += 3;
	e4_dx_entry(&root, 1, &lo, &lblk);
	hi = 0xffffffffu;
	if (root.count > 2) {
		e4_dx_entry(&root, 2, &next, &(uint32_t){ 0 });
		hi = next & ~1u;
	}
	if (root.indirect_levels == 1) {
		if (read_lblk(fs, runs, nruns, lblk, buf) ||
		    e4_dx_node_parse(buf, bs, csum, &node, &why) != E4_OK ||
		    node.count < 2)
			goto out;
		e4_dx_entry(&node, 1, &lo, &lblk);
		if (node.count > 2) {
			e4_dx_entry(&node, 2, &next, &(uint32_t){ 0 });
			hi = next & ~1u;
		}
	}
	lo &= ~1u;
	if (lo > hi || read_lblk(fs, runs, nruns, lblk, buf))
		goto out;
	r = leaf_vote(fs, buf, version, lo, hi);
out:
	free(runs);
	free(buf);
	return r;
}

static int len_cb(void *arg, const struct e4_dirent *de)
{
	struct vote *v = arg;

	if (e4_dirent_is_dot(de))
		return 0;
	if (!e4_fname_stored_len_possible(E4_FORMAT_61, v->pad, de->name_len,
					  E4_NAME_MAX) &&
	    e4_fname_stored_len_possible(E4_FORMAT_2015, v->pad, de->name_len,
					 E4_NAME_MAX))
		v->lengths++;
	return v->lengths >= FORMAT_2015_EVIDENCE;
}

static int vote_inode(void *arg, const struct e4_inode *in)
{
	struct vote *v = arg;
	struct e4_context ctx;
	const char *why;

	if (!in->encrypted || !E4_ISDIR(in->mode) ||
	    (in->flags & E4_INODE_CASEFOLD_FL) ||
	    e4_inode_context(v->fs, in, &ctx, &why) != E4_OK ||
	    ctx.version != E4_CONTEXT_V1)
		return 0;
	if (in->flags & E4_INODE_INDEX_FL) {
		v->result = htree_vote(v->fs, in);
		if (v->result != E4_FORMAT_AUTO)
			return 1;
	}
	v->pad = e4_context_name_padding(&ctx);
	e4_dir_iterate(v->fs, in, NULL, len_cb, v, NULL);
	if (v->lengths >= FORMAT_2015_EVIDENCE) {
		v->result = E4_FORMAT_2015;
		return 1;
	}
	return 0;
}

static void quiet(void *arg, const struct e4_diag *d)
{
	(void)arg, (void)d;
}

enum e4_name_format e4_fs_name_format(struct e4_fs *fs)
{
	struct vote v = { fs, 0, 0, E4_FORMAT_AUTO };
	e4_diag_fn diag = fs->opt.diag;

	if (fs->format != E4_FORMAT_AUTO)
		return fs->format;
	if (fs->info.encrypt_2015_feature) {
		fs->format = E4_FORMAT_2015;
		fs->format_why = "encrypt_2015 feature";
		return fs->format;
	}
	/* damage is reported where the directories are read, not here */
	fs->opt.diag = quiet;
	e4_fs_scan_inodes(fs, 0, vote_inode, &v);
	fs->opt.diag = diag;
	fs->format = v.result == E4_FORMAT_2015 ? E4_FORMAT_2015 : E4_FORMAT_61;
	fs->format_why = v.result == E4_FORMAT_2015 ?
		"names: htree hashes or stored lengths of the 2015 format" :
		v.result == E4_FORMAT_61 ? "names: htree hashes of Linux 6.1" :
		"no evidence of the 2015 format";
	return fs->format;
}

const char *e4_fs_name_format_why(struct e4_fs *fs)
{
	e4_fs_name_format(fs);
	return fs->format_why ? fs->format_why : "--format option";
}

const struct ext2fs_nls_table *e4_fs_casefold_table(struct e4_fs *fs)
{
	if (!fs->info.casefold_feature)
		return NULL;
	if (fs->casefold_state == 0)
		fs->casefold_state = e4_casefold_self_check(fs->ext2->encoding) ? 1 : -1;
	return fs->casefold_state > 0 ? fs->ext2->encoding : NULL;
}

#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "keyring.h"
#include "modes.h"

struct policy_count {
	struct e4_context ctx;
	size_t inodes;
};

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

int cmd_info(const struct options *o)
{
	struct img im;
	struct keyring kr;
	struct inode_index *idx;
	struct ext2_super_block *sb;
	struct policy_count pol[64];
	size_t npol = 0, flagged = 0, dirs = 0, regs = 0, links = 0, other = 0;
	size_t bad_ctx = 0, ctx_unflagged = 0, more_policies = 0;
	int rc;

	rc = session_open(o, &im, &kr);
	if (rc)
		return rc;
	sb = im.fs->super;
	idx = keyring_index(&kr);
	printf("image: %s\n", im.path);
	printf("block size: %u\n", im.blocksize);
	printf("encrypt feature: %s\n",
	       ext2fs_has_feature_encrypt(sb) ? "yes" : "no");
	printf("s_encryption_level: %u\n", sb->s_encryption_level);
	printf("s_encrypt_algos:");
	for (int i = 0; i < 4; i++)
		printf(" %u", sb->s_encrypt_algos[i]);
	printf("\n");
	printf("s_encrypt_pw_salt: ");
	print_hex(sb->s_encrypt_pw_salt, sizeof(sb->s_encrypt_pw_salt));
	printf("\n");
	for (size_t i = 0; i < idx->n; i++) {
		const struct enc_inode *e = &idx->v[i];
		size_t j;

		if (!e->flagged) {
			ctx_unflagged++;
			continue;
		}
		flagged++;
		if (LINUX_S_ISDIR(e->mode))
			dirs++;
		else if (LINUX_S_ISREG(e->mode))
			regs++;
		else if (LINUX_S_ISLNK(e->mode))
			links++;
		else
			other++;
		if (e->res != CTX_OK) {
			bad_ctx++;
			continue;
		}
		for (j = 0; j < npol; j++)
			if (e4_context_same_policy(&pol[j].ctx, &e->ctx))
				break;
		if (j == npol) {
			if (npol == sizeof(pol) / sizeof(pol[0])) {
				more_policies++;
				continue;
			}
			pol[npol].ctx = e->ctx;
			pol[npol++].inodes = 0;
		}
		pol[j].inodes++;
	}
	printf("encrypted inodes: %zu (directories %zu, regular files %zu, symlinks %zu, other %zu)\n",
	       flagged, dirs, regs, links, other);
	if (bad_ctx)
		printf("encrypted inodes without a valid context: %zu\n", bad_ctx);
	if (ctx_unflagged)
		printf("unencrypted inodes with a context: %zu\n", ctx_unflagged);
	printf("policies: %zu\n", npol);
	for (size_t j = 0; j < npol; j++) {
		const struct e4_context *c = &pol[j].ctx;
		char hex[33], how[512];

		e4_context_key_id_hex(c, hex);
		keyring_describe(&kr, c, how, sizeof(how));
		printf("  policy v%u: contents %s (%u), filenames %s (%u), flags 0x%02x (padding %u), %s %s, inodes %zu, %s\n",
		       c->version, e4_mode_name(c->contents_mode),
		       c->contents_mode, e4_mode_name(c->filenames_mode),
		       c->filenames_mode, c->flags, e4_context_name_padding(c),
		       c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
		       hex, pol[j].inodes, how);
	}
	if (more_policies)
		printf("  (%zu inodes in further policies not shown)\n", more_policies);
	session_close(&im, &kr);
	return EXIT_DONE;
}

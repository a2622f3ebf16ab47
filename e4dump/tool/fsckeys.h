/* The fscrypt tool's protectors and policies in an image (and the root
 * filesystem its .link files name), and the policy keys the examiner's
 * passphrases and raw protector keys unwrap from them, given to the key
 * store as --key-file keys are.  Lists them without secrets (info,
 * keyid). */
#ifndef E4DUMP_FSCKEYS_H
#define E4DUMP_FSCKEYS_H

#include <json-c/json.h>
#include "fs.h"
#include "fscrypt_tool.h"
#include "keystore.h"
#include "options.h"
#include "policydirs.h"
#include "report.h"

struct fsc_protector {
	struct e4_fsc_protector p;
	char file[96];          /* /.fscrypt/protectors/DESC */
	int on_root;            /* found on --fscrypt-root (through a link) */
	char *opened_with;      /* the secret's file, escaped; NULL: locked */
};

struct fsc_link {
	char descriptor[E4_FSC_PROTECTOR_DESC + 1];
	char file[96];
	struct e4_fsc_link l;   /* path points into data */
	uint8_t *data;
	long target;            /* index of the protector it reaches, or -1 */
	int by_path;            /* reached by its PATH= (mount point), not
				 * by its UUID= */
	char why[600];          /* why not */
};

struct fsc_policy {
	struct e4_fsc_policy p;
	char file[96];
	long opened_by;         /* protector index, or -1 */
};

struct fsc_state {
	struct fsc_protector *prot;
	size_t n_prot, cap_prot;
	struct fsc_link *links;
	size_t n_links;
	struct fsc_policy *pol;
	size_t n_pol;
	int present;            /* the image has /.fscrypt */
};

/* Read the image's /.fscrypt (and the root's protectors its links
 * name; root may be NULL).  Problems are reported; NULL only when out of
 * memory. */
struct fsc_state *fsc_load(struct e4_fs *fs, struct e4_fs *root,
			   struct report *r);
void fsc_free(struct fsc_state *st);

/* Passphrase protectors (login and custom) in st. */
size_t fsc_passphrase_protectors(const struct fsc_state *st);

/* Try o's passphrase files (sec: their bytes, n of them; NULL when
 * none) and protector key files against every protector of their kind,
 * unwrap the policy keys of those that open, check each against its
 * policy's descriptor and add it to ks (and to --write-policy-keys).
 * opened_by_sec[k] (n_sec of them, zeroed by the caller) counts the
 * protectors passphrase k opened: whether one that opened none is an
 * error is the caller's to say, as the passphrase may be an e4crypt
 * one.  Returns the number of protectors opened, or -1 after a fatal
 * error (a key file that cannot be read, DIR that cannot be written). */
struct secret;
long fsc_unlock(struct fsc_state *st, struct e4_keystore *ks,
		const struct options *o, const struct secret *sec, size_t n_sec,
		size_t *opened_by_sec, struct report *r);

/* info and keyid: every protector, policy and link, without secrets;
 * fs gives each policy's inode count, pd (NULL: not listed) the top
 * directories of each policy. */
void fsc_print(const struct fsc_state *st, struct e4_fs *fs,
	       const struct policy_dirs *pd, int json);

#endif

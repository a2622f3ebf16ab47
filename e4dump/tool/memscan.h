/* Keys from memory captures (spec §17): the candidates every capture's
 * scan finds (image/source/capture_scan.h), kept once each, and turned
 * into keys of a key store: v1 master keys as found (logon payloads,
 * fscrypt_master_key_secret), v2 keys as their HKDF states, and v1 master
 * keys computed from per-file AES keys with the nonces of an image's
 * inodes.  Nothing here decides which key opens what: the core does, by
 * its one rule (e4_fs_policy_key: identifier, descriptor, trial
 * decryption of names), so a structural match is never taken for a key.
 * Every copy of key material is wiped before it is freed. */
#ifndef E4DUMP_MEMSCAN_H
#define E4DUMP_MEMSCAN_H

#include <stddef.h>
#include <stdint.h>
#include "capture.h"
#include "capture_scan.h"
#include "fs.h"
#include "keystore.h"
#include "report.h"

/* Distinct candidates kept; more are counted. */
#define MEMSCAN_MAX_CANDIDATES (1u << 16)
/* (inode, AES key) pairs tried for v1 per-file keys at most. */
#define MEMSCAN_MAX_PAIRS (1u << 20)

struct memscan_capture {
	const char *path;
	const char *kind;        /* "raw", "LiME", "ELF core" */
	enum e4_status status;   /* E4_OK: read and scanned */
	char why[256];           /* when not */
	uint64_t file_size, bytes, scanned;
	size_t ranges, headers, problems, n_notes;
	char notes[E4_CAPTURE_MAX_NOTES][200];
};

/* What a key of the store came from: a candidate as found, or a v1
 * master key computed from per-file keys. */
struct memscan_origin {
	enum e4_memkey_kind kind;   /* of the (first) structure */
	int from_file_keys;         /* computed from per-file AES keys */
	size_t capture;             /* where the structure is */
	uint64_t file_off, phys;
	uint32_t ino;               /* from_file_keys: an inode whose nonce
				     * gave it */
	size_t copies;              /* structures found with these bytes */
	unsigned int kinds;         /* what gave them: memscan_kind_bit of
				     * each */
	uint8_t id[16];             /* v2: its identifier; v1: its e4crypt
				     * descriptor in the first 8 */
	size_t key_len;             /* bytes of the key (v1) */
	int named;                  /* the structure names a descriptor: */
	uint8_t descriptor[8];      /* v1-ioctl's mk_spec, a description's */
	long ks_index;              /* in the key store, or -1 */
};

struct memscan_cand;

struct memscan {
	struct memscan_capture *cap;
	size_t n_cap;
	struct memscan_cand *cand;  /* distinct candidates, in order found */
	size_t n_cand, cap_cand, dropped;
	size_t *bucket;             /* hash of the candidates (index + 1) */
	size_t n_bucket;
	size_t pairs_tried, pairs_cut; /* per-file search: done, left out */
};

/* Scan each capture (threads as for e4_capture_scan) into m (zeroed
 * first).  A capture that cannot be opened or read is reported (an error
 * naming it) and the others go on.  0, or -1 when out of memory. */
int memscan_run(struct memscan *m, const char *const *paths, size_t n,
		unsigned int threads, struct report *r);

/* Add the candidates to ks: v1 keys (the same bytes once), v2 states
 * (e4_keystore_add_states), and, when fs is not NULL, the v1 master keys
 * that per-file AES keys give with the nonces of fs's v1 inodes (each
 * found from two inodes, so that chance does not make one).  Sets each
 * origin's ks_index.  0, or -1 after an error. */
int memscan_add_keys(struct memscan *m, struct e4_fs *fs,
		     struct e4_keystore *ks, struct report *r);

/* The bit of an origin's kind in kinds: 1 << kind, or this one for a
 * key computed from per-file keys. */
#define MEMSCAN_FILE_KEYS (1u << 8)
unsigned int memscan_kind_bit(const struct memscan_origin *o);

/* Whether a logon key's description naming descriptor was found. */
int memscan_described(const struct memscan *m, const uint8_t descriptor[8]);

/* Number of origins (candidates, then derived keys) and origin i. */
size_t memscan_origins(const struct memscan *m);
const struct memscan_origin *memscan_origin(const struct memscan *m, size_t i);
/* The origin whose key is key i of the store, or NULL. */
const struct memscan_origin *memscan_origin_of_key(const struct memscan *m,
						   long ks_index);
/* The key bytes or states of origin i, for --write-keys: *raw and *len for
 * v1, *states for v2 (the other NULL/0). */
void memscan_secret(const struct memscan *m, size_t i, const uint8_t **raw,
		    size_t *len, const struct e4_hmac_states **states);

void memscan_free(struct memscan *m);

#endif

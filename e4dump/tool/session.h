/* What a command that reads an image sets up: the keys, the report and
 * the opened filesystem. */
#ifndef E4DUMP_SESSION_H
#define E4DUMP_SESSION_H

#include "fs.h"
#include "fsckeys.h"
#include "keystore.h"
#include "options.h"
#include "report.h"

/* Exit codes. */
#define EXIT_DONE 0
#define EXIT_SKIPPED 1 /* something could not be read, decrypted or kept */
#define EXIT_FATAL 2   /* bad usage, keys or image cannot be used */
#define EXIT_FINDINGS 1 /* verify: the image breaks a rule of the format */

struct session {
	struct e4_fs *fs;
	struct e4_keystore *keys;
	struct report *report;
	const char *image;
	struct fsc_state *fsc;  /* the fscrypt tool's metadata, when read */
	struct e4_fs *fscrypt_root; /* --fscrypt-root */
	int secrets;            /* keys, passphrases or protector keys given */
};

/* Load the keys, open IMAGE (o->args[0]) read-only.  listing: a locked
 * policy only means no-key names.  0, or EXIT_FATAL after an error. */
int session_open(struct session *s, const struct options *o, struct report *r,
		 int listing);
/* The same with the library's diagnostics going to diag (verify). */
int session_open_diag(struct session *s, const struct options *o,
		      struct report *r, int listing, e4_diag_fn diag,
		      void *diag_arg);
void session_close(struct session *s);

/* The fscrypt tool's metadata of the image (info, keyid list it): read
 * once (session_open reads it when fscrypt secrets are given).  0, or
 * EXIT_FATAL. */
int session_fscrypt(struct session *s, const struct options *o);

/* Threads besides the calling one that may read the image: none when its
 * source cannot be read concurrently, else --threads less one, by default
 * one per other online CPU (at most max). */
unsigned int session_extra_threads(const struct session *s,
				   const struct options *o, unsigned int max);

/* Threads scanning a memory capture (files are read concurrently):
 * --threads, by default one per online CPU. */
unsigned int session_scan_threads(const struct options *o);

/* The exit status after a command that ran: EXIT_SKIPPED when any error
 * was reported, or when keys were given and a policy stayed locked, else
 * EXIT_DONE. */
int session_status(const struct session *s);

/* Flush standard output; EXIT_FATAL after an error when it failed (a
 * full disk, a closed pipe), else rc. */
int finish_stdout(int rc, struct report *r);

/* The end of a command: with --json (json non-zero) its summary with
 * exit rc (json_summary, nothing added), then finish_stdout(rc). */
int json_finish(int json, const char *command, struct report *r, int rc);

#endif

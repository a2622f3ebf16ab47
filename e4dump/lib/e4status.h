/* Result codes shared by the library. */
#ifndef E4_STATUS_H
#define E4_STATUS_H

enum e4_status {
	E4_OK = 0,
	E4_CORRUPT,      /* malformed: cannot be what any kernel wrote */
	E4_UNRECOGNIZED, /* well-formed but a version/mode/flag we do not know */
	E4_UNSUPPORTED,  /* recognized but not implemented here */
	E4_BAD_KEY,      /* key of the wrong size or decryption not plausible */
	E4_CRYPTO,       /* the crypto library failed */
	E4_NOMEM,
	E4_IO,           /* the image could not be read */
	E4_NO_KEY,       /* no given key opens the policy (it stays locked) */
	E4_NOT_FOUND,    /* no such entry */
	E4_NOT_DIR,      /* a directory was expected */
	E4_LIMIT,        /* a safety limit was reached (depth, entries, size) */
	E4_INVALID,      /* a bad argument from the caller */
	E4_STOPPED,      /* a callback asked to stop */
};

const char *e4_status_str(enum e4_status st);

#endif

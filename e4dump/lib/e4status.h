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
};

const char *e4_status_str(enum e4_status st);

#endif

#include "e4status.h"

const char *e4_status_str(enum e4_status st)
{
	switch (st) {
	case E4_OK: return "ok";
	case E4_CORRUPT: return "corrupt";
	case E4_UNRECOGNIZED: return "unrecognized";
	case E4_UNSUPPORTED: return "unsupported";
	case E4_BAD_KEY: return "wrong key";
	case E4_CRYPTO: return "crypto library failure";
	case E4_NOMEM: return "out of memory";
	}
	return "unknown error";
}

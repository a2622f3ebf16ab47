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
	case E4_IO: return "read error";
	case E4_NO_KEY: return "no key";
	case E4_NOT_FOUND: return "not found";
	case E4_NOT_DIR: return "not a directory";
	case E4_LIMIT: return "limit exceeded";
	case E4_INVALID: return "invalid argument";
	case E4_STOPPED: return "stopped";
	}
	return "unknown error";
}

/* OpenSSL algorithms fetched once, for many key setups: OpenSSL 3 looks a
 * name up in its provider store at every setup otherwise, which costs as
 * much as the setup itself (a per-file key for each of 30,000 files).
 * Immutable once made, so threads may share one. */
#ifndef E4_ALGS_H
#define E4_ALGS_H

#include "e4status.h"

struct e4_algs;

enum e4_status e4_algs_new(struct e4_algs **out);
void e4_algs_free(struct e4_algs *a);

#endif

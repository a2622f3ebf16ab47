/* e4dump vectors, as the command table calls it. */
#ifndef E4DUMP_VECTORS_COMMAND_H
#define E4DUMP_VECTORS_COMMAND_H

#include "options.h"
#include "report.h"

int cmd_vectors(const struct options *o, struct report *r);

#endif

/* A finding's message: its problem's template with the finding's values put in. */
#ifndef E4R_CHECK_MESSAGE_H
#define E4R_CHECK_MESSAGE_H

#include <stddef.h>
#include "check/problem.h"

/*
 * Expand TMPL, the message template of F's problem (check/problem.h lists
 * its fields; the caller passes it translated, as lib/ has no catalog),
 * with F's values into OUT, SIZE bytes (at least 1), cut to fit and always
 * terminated. A value F does not have is "?"; an entry name is shown as
 * its bytes, anything not printable ASCII (and '\' itself) as \xNN: what
 * a damaged name holds is seen, and cannot drive a terminal; %x is the
 * com_err message of the error code found.
 */
void check_message_format(const char *tmpl, const struct check_finding *f, char *out, size_t size);

#endif

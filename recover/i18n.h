/* gettext glue: every user-visible string goes through _() or N_(). */
#ifndef E4R_I18N_H
#define E4R_I18N_H

#include <libintl.h>
#define _(s)	gettext(s)
#define N_(s)	(s)

#endif

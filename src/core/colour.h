/* colour: whether what goes to a file descriptor may be coloured, and the few colours used.
 * Only on a terminal, never with NO_COLOR set (and not empty) or TERM=dumb (no-color.org). */
#ifndef TESTFENCE_COLOUR_H
#define TESTFENCE_COLOUR_H

#include <stdbool.h>

#define COLOUR_RED "\033[1;31m"
#define COLOUR_BOLD "\033[1m"
#define COLOUR_YELLOW "\033[33m"
#define COLOUR_CYAN "\033[36m"
#define COLOUR_OFF "\033[0m"

bool colour_wanted(int fd);

/* S when ON, else "": fprintf(f, "%sfailed%s", colour_if(on, COLOUR_RED), colour_if(on,
 * COLOUR_OFF)). */
const char *colour_if(bool on, const char *s);

#endif

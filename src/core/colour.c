#include "colour.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool colour_wanted(int fd)
{
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    if ((no && no[0]) || (term && !strcmp(term, "dumb")))
        return false;
    return isatty(fd) == 1;
}

const char *colour_if(bool on, const char *s)
{
    return on ? s : "";
}

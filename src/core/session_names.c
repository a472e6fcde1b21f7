#include "session_names.h"

#include <string.h>

static const char *const backend_names[] = {"landlock", "preload", "none"};

int session_backend_of(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, backend_names[i]))
            return i;
    return -1;
}

const char *session_backend_name(enum session_backend b)
{
    return backend_names[b];
}

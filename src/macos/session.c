/* session: what the macOS build says in place of a run (see session.h). A fence for macOS
 * (a generated Seatbelt profile) is designed in docs/platforms.md. */
#include "session.h"

#include <string.h>

static const char *const backend_names[] = {"landlock", "preload", "none"};

int session_backend_of(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, backend_names[i]))
            return i;
    return -1;
}

const char session_os[] = "macOS";

const char session_unavailable[] =
    "not available on macOS yet: use the pytest plugin; see docs/platforms.md";

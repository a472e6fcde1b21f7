/* session: what the Windows build says in place of a run (core/session_names.h). A fence for
 * Windows (a write-restricted token and a Job Object) is designed in docs/platforms.md. */
#include "core/session_names.h"

const char session_os[] = "Windows";

const char session_unavailable[] =
    "not available on Windows yet: use the pytest plugin; see docs/platforms.md";

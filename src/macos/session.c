/* session: what the macOS build says in place of a run (core/session_names.h). A fence for
 * macOS (a generated Seatbelt profile) is designed in docs/platforms.md. */
#include "core/session_names.h"

const char session_os[] = "macOS";

const char session_unavailable[] =
    "not available on macOS yet: use the pytest plugin; see docs/platforms.md";

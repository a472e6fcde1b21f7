/* workspace_names: the files testfence writes in a run's workspace itself, which the
 * config may not name (workspace.h); data only, so the Windows build's config has it too. */
#include "workspace.h"
#include "shimconf.h"

#include <stddef.h>

const char *const ws_reserved_names[] = {
    WS_MARKER, WS_MARKER_NEW, WS_XDG, WS_TMP, SHIMCONF_FILE, SHIMCONF_LOG, SHIMCONF_REPORT, NULL,
};

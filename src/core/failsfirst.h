/* failsfirst: would the kernel refuse a write before the fence is asked (EEXIST, ENOENT,
 * EISDIR)? Then nothing was written and there is nothing to report (the plugin's audit hook). */
#ifndef TESTFENCE_FAILSFIRST_H
#define TESTFENCE_FAILSFIRST_H

#include <stdbool.h>

/* OP ("open", "mkdir", "symlink", "link", "rename", "unlink", "rmdir", "truncate") aims at
 * RESOLVED (absolute, as path_resolve_at named it); OFLAGS are open(2)'s flags; SOURCE, when
 * not NULL, is a rename's old name relative to SOURCE_DIRFD. True only when the call is sure
 * to fail on its own: when in doubt (an unknown OP, a lookup that fails otherwise), false. */
bool fails_first(const char *op, int oflags, const char *resolved, int source_dirfd,
                 const char *source);

#endif

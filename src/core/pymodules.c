/* pymodules: the names of the modules Python and pytest import at start-up, for the hazard
 * scan: a file a run plants under one of them would run before the next run's fence. */
#include "pymodules.h"

#include <stdlib.h>
#include <string.h>

/* Sorted (scripts/gen-pymodules.py writes the list). */
static const char *const names[] = {
#include "pymodules_list.h"
};

static int by_name(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

bool pymodule_known(const char *name)
{
    return bsearch(name, names, sizeof names / sizeof names[0], sizeof names[0], by_name) != NULL;
}

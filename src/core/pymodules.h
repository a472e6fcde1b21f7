/* pymodules: the names of the modules Python and pytest import at start-up, for the hazard
 * scan: a file a run plants under one of them would run before the next run's fence. */
#ifndef TESTFENCE_PYMODULES_H
#define TESTFENCE_PYMODULES_H

#include <stdbool.h>

/* Is NAME ("argparse", "iniconfig") a top-level module Python or pytest imports? */
bool pymodule_known(const char *name);

#endif

/* apy_writes: calls that write files: the writer table (open, os, shutil, logging,
 * archives, databases) with their modes, path methods, and temp files outside tmp_path. */
#ifndef TESTFENCE_APY_WRITES_H
#define TESTFENCE_APY_WRITES_H

#include "apy_node.h"

/* A call of a writer in the table: its writes as facts; false when NAME is none. */
bool apy_on_writer(apy *P, uint32_t call, const char *name);

/* A unique temp file or dir without dir= under the tests: a style finding (tmp_path). */
bool apy_on_temp(apy *P, uint32_t call, const char *name);

/* receiver.method(...) where the receiver is a known path object. */
void apy_on_path_method(apy *P, uint32_t call, uint32_t fn);

#endif

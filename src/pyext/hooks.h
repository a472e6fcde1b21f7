/* The compiled binding's calls into the running Python and the shim: the audit filter put in
 * with PySys_AddAuditHook, the shim loaded and patched, its frames callback (src/pyext/). */
#ifndef TF_PYEXT_HOOKS_H
#define TF_PYEXT_HOOKS_H

#include "testfence.h"

/* O& converters: bytes or None (NULL); bytes only. Bytes holding a NUL are a ValueError. */
int pyext_opt_bytes(PyObject *o, void *out);
int pyext_bytes(PyObject *o, void *out);

/* LIST (of bytes) as a NULL-ended array of its strings, its length in *N (the list's items
 * keep them alive; PyMem_Free it); NULL with Python's error set. */
const char **pyext_string_array(PyObject *list, Py_ssize_t *n);

/* audit_filter_add(hook, [bytes]) -> bool: HOOK behind the library's filter (SET, FILTER),
 * for the events named; False where this Python cannot have it (the caller adds HOOK). */
PyObject *pyext_audit_filter_add(PyObject *args, __typeof__(tf_audit_filter_set) *set,
                                 __typeof__(tf_audit_filter) *filter);

/* shim_open(path or None) -> handle or None; the others take that handle, and return None
 * where the shim has no such call: shim_patchable(h), shim_patch(h, conf), shim_rescan(h),
 * shim_attach(h, conf), shim_frames(h, fields), shim_frames_off(h); FIELDS(frame) -> bytes:
 * where a write the shim refused on this thread came from (where.py); the first FIELDS given
 * is the only one (another: -1). */
PyObject *py_shim_open(PyObject *self, PyObject *args);
PyObject *py_shim_patchable(PyObject *self, PyObject *args);
PyObject *py_shim_patch(PyObject *self, PyObject *args);
PyObject *py_shim_rescan(PyObject *self, PyObject *args);
PyObject *py_shim_attach(PyObject *self, PyObject *args);
PyObject *py_shim_frames(PyObject *self, PyObject *args);
PyObject *py_shim_frames_off(PyObject *self, PyObject *args);

#endif

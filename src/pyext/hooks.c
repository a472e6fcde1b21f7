/* The compiled binding's calls into the running Python and into the shim (hooks.h). Every
 * Python call found here with dlsym in the running process, as ctypes.pythonapi finds it:
 * PyThreadState_EnterTracing and PySys_AddAuditHook are not in the stable ABI. */
#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x03090000
#include <Python.h>

#include <dlfcn.h>
#include <string.h>

#include "hooks.h"

int pyext_opt_bytes(PyObject *o, void *out)
{
    if (o == Py_None) {
        *(const char **)out = NULL;
        return 1;
    }
    if (!PyBytes_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "bytes or None expected");
        return 0;
    }
    /* With no length asked for, a NUL inside is a ValueError: C would see a shorter string
     * than the one given, and judge another path. */
    char *s;
    if (PyBytes_AsStringAndSize(o, &s, NULL) < 0)
        return 0;
    *(const char **)out = s;
    return 1;
}

int pyext_bytes(PyObject *o, void *out)
{
    if (o == Py_None) {
        PyErr_SetString(PyExc_TypeError, "bytes expected, not None");
        return 0;
    }
    return pyext_opt_bytes(o, out);
}

const char **pyext_string_array(PyObject *list, Py_ssize_t *n)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "a list of bytes expected");
        return NULL;
    }
    *n = PyList_Size(list);
    const char **a = PyMem_Calloc((size_t)*n + 1, sizeof *a);
    if (!a)
        return (const char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < *n; i++) {
        if (!pyext_bytes(PyList_GetItem(list, i), (void *)&a[i])) {
            PyMem_Free(a);
            return NULL;
        }
    }
    return a;
}

/* ---- the audit filter ------------------------------------------------------------------ */

/* The filter's Python calls, and PySys_AddAuditHook, from the running Python; 0, or -1
 * when one is missing (not CPython 3.11+, or a build that does not export it). */
static int python_calls(tf_python_api *api, int (**add)(void *, void *))
{
    static const char *const names[] = {"PyObject_CallFunction",      "Py_DecRef",
                                        "PyInterpreterState_Get",     "PyThreadState_Get",
                                        "PyThreadState_EnterTracing", "PyThreadState_LeaveTracing",
                                        "PySys_AddAuditHook"};
    void *found[sizeof names / sizeof *names];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!(found[i] = dlsym(RTLD_DEFAULT, names[i])))
            return -1;
    /* dlsym's void * to function pointers: POSIX's way (dlsym(3)). */
    memcpy(&api->call_function, &found[0], sizeof found[0]);
    memcpy(&api->dec_ref, &found[1], sizeof found[1]);
    memcpy(&api->interpreter, &found[2], sizeof found[2]);
    memcpy(&api->thread_state, &found[3], sizeof found[3]);
    memcpy(&api->enter_tracing, &found[4], sizeof found[4]);
    memcpy(&api->leave_tracing, &found[5], sizeof found[5]);
    memcpy(add, &found[6], sizeof found[6]);
    return 0;
}

PyObject *pyext_audit_filter_add(PyObject *args, __typeof__(tf_audit_filter_set) *set,
                                 __typeof__(tf_audit_filter) *filter)
{
    PyObject *hook, *list;
    Py_ssize_t n;
    tf_python_api api;
    int (*add)(void *, void *);
    if (!PyArg_ParseTuple(args, "OO", &hook, &list))
        return NULL;
    if (python_calls(&api, &add) < 0)
        Py_RETURN_FALSE;
    const char **names = pyext_string_array(list, &n);
    if (!names)
        return NULL;
    int rc = set(&api, api.interpreter(), hook, names, (size_t)n);
    PyMem_Free(names);
    if (rc < 0)
        Py_RETURN_FALSE;
    Py_INCREF(hook); /* for the process's lifetime: the filter holds it */
    void *as_data = NULL;
    void *fn;
    memcpy(&fn, &filter, sizeof fn);
    if (add(fn, as_data) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return NULL; /* KeyboardInterrupt, SystemExit: not ours to drop */
        PyErr_Clear();   /* an earlier hook refused it: the caller asks sys.addaudithook next */
        Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* ---- the shim ---------------------------------------------------------------------------- */

/* The shim's call NAME in the loaded object H (an int from shim_open), or NULL with no error
 * when it has none; NULL with Python's error set for a bad H. */
static void *shim_call(PyObject *args, const char *name, const char **conf)
{
    PyObject *h;
    if (!(conf ? PyArg_ParseTuple(args, "OO&", &h, pyext_bytes, conf)
               : PyArg_ParseTuple(args, "O", &h)))
        return NULL;
    void *handle = PyLong_AsVoidPtr(h);
    if (!handle) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "no shim handle");
        return NULL;
    }
    return dlsym(handle, name);
}

#define SHIM_FN(var, type, name, conf)                                                             \
    __typeof__(type) var;                                                                          \
    {                                                                                              \
        void *p_ = shim_call(args, name, conf);                                                    \
        if (!p_) {                                                                                 \
            if (PyErr_Occurred())                                                                  \
                return NULL;                                                                       \
            Py_RETURN_NONE;                                                                        \
        }                                                                                          \
        memcpy(&var, &p_, sizeof p_);                                                              \
    }

PyObject *py_shim_open(PyObject *self, PyObject *args)
{
    const char *path;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&", pyext_opt_bytes, &path))
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* NULL: the process's global scope */
    if (!h)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(h);
}

PyObject *py_shim_patchable(PyObject *self, PyObject *args)
{
    (void)self;
    SHIM_FN(fn, int (*)(void), "testfence_shim_patchable", NULL);
    return PyLong_FromLong(fn());
}

PyObject *py_shim_patch(PyObject *self, PyObject *args)
{
    const char *conf = NULL;
    (void)self;
    SHIM_FN(fn, int (*)(const char *), "testfence_shim_patch", &conf);
    return PyLong_FromLong(fn(conf));
}

PyObject *py_shim_rescan(PyObject *self, PyObject *args)
{
    (void)self;
    SHIM_FN(fn, void (*)(void), "testfence_shim_rescan", NULL);
    fn();
    Py_RETURN_NONE;
}

PyObject *py_shim_attach(PyObject *self, PyObject *args)
{
    const char *conf = NULL;
    (void)self;
    SHIM_FN(fn, int (*)(const char *), "testfence_shim_attach", &conf);
    return PyLong_FromLong(fn(conf));
}

/* The Python side of the shim's frames callback: called with the frame of the code that
 * made the write (None: no Python code), it returns the five fields as bytes. Kept for the
 * process's life once set: a thread may be in it. */
static PyObject *frames_callable;

/* Called by the shim on the thread whose write was refused, holding the GIL or not. The
 * fields into BUF, or nothing (0): the record is made all the same, without them. An
 * exception the thread had pending stays pending; one the callable raised is dropped. */
static int frames_call(char *buf, int cap)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    int n = 0;
    PyObject *frame = (PyObject *)PyEval_GetFrame(); /* the code whose write it was */
    PyObject *r = PyObject_CallFunctionObjArgs(frames_callable, frame ? frame : Py_None, NULL);
    if (r && PyBytes_Check(r)) {
        Py_ssize_t len = PyBytes_Size(r);
        if (len > 0 && len < cap) {
            memcpy(buf, PyBytes_AsString(r), (size_t)len);
            n = (int)len;
        }
    }
    Py_XDECREF(r);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    PyGILState_Release(gil);
    return n;
}

PyObject *py_shim_frames(PyObject *self, PyObject *args)
{
    PyObject *h, *callable;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &h, &callable))
        return NULL;
    PyObject *just_h = Py_BuildValue("(O)", h);
    if (!just_h)
        return NULL;
    void *p = shim_call(just_h, "testfence_shim_frames", NULL);
    Py_DECREF(just_h);
    if (!p)
        return PyErr_Occurred() ? NULL : Py_BuildValue("");
    int (*fn)(int (*)(char *, int));
    memcpy(&fn, &p, sizeof p);
    /* The first callable keeps its place, as the shim keeps its first function: a test that
     * gives another (to put lines of its choosing in records) is refused, as the shim
     * refuses its own function. Kept for the process's life: a thread may be in it. */
    if (frames_callable && callable != frames_callable)
        return PyLong_FromLong(-1);
    if (!frames_callable) {
        Py_INCREF(callable);
        frames_callable = callable;
    }
    return PyLong_FromLong(fn(frames_call));
}

PyObject *py_shim_frames_off(PyObject *self, PyObject *args)
{
    (void)self;
    SHIM_FN(fn, int (*)(int (*)(char *, int)), "testfence_shim_frames_off", NULL);
    return PyLong_FromLong(fn(frames_call));
}

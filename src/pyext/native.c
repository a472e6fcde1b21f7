/* _testfence._native: the pytest plugin's binding to libtestfence and to the shim, compiled,
 * in place of ctypes (whose import and 48 prototypes cost the plugin's start about 2 ms).
 * It makes the calls native.py's Session makes, with the same Python types: a session is an
 * int (the tf_session pointer), strings are bytes or None. The library is the one native.py
 * chose, opened here by its path; nothing here decides anything the library does not.
 * Built with the stable ABI (Py_LIMITED_API): one _native.abi3.so for every CPython 3.9+. */
#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x03090000
#include <Python.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

#include "hooks.h"
#include "testfence.h"

PyMODINIT_FUNC PyInit__native(void);

/* The calls and their Python forms, as native.py (BINDING_VERSION there) expects them: one
 * more whenever either changes. */
#define PYEXT_BINDING_VERSION 1

/* The library's calls this module makes, each typed by include/testfence.h's prototype. */
#define TF_CALLS(X)                                                                                \
    X(tf_api_version)                                                                              \
    X(tf_open)                                                                                     \
    X(tf_close)                                                                                    \
    X(tf_error)                                                                                    \
    X(tf_error_kind)                                                                               \
    X(tf_warning)                                                                                  \
    X(tf_load) X(tf_set_outputs) X(tf_check) X(tf_prepare) X(tf_fence) X(tf_attach) X(tf_root)     \
        X(tf_config_source) X(tf_workspace) X(tf_tmp) X(tf_output) X(tf_pytest_cache) X(tf_shim)   \
            X(tf_fence_dir) X(tf_landlock_abi) X(tf_set_backend) X(tf_policy_entry)                \
                X(tf_env_count) X(tf_env_name) X(tf_env_value) X(tf_path_check_at)                 \
                    X(tf_files_inside) X(tf_fenced) X(tf_record_at) X(tf_test_split)               \
                        X(tf_ioctl_class) X(tf_fails_first) X(tf_violations_load)                  \
                            X(tf_violation_str) X(tf_violation_line) X(tf_violation_int)           \
                                X(tf_summary) X(tf_status) X(tf_end_tmp) X(tf_planted) X(tf_free)  \
                                    X(tf_audit_filter_set) X(tf_audit_filter)

#define TF_FIELD(name) __typeof__(name) *name;
static struct {
    void *handle;
    TF_CALLS(TF_FIELD)
} lib;

static PyObject *bytes_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyBytes_FromString(s);
}

/* O& converters: a session handle (an int); pyext_opt_bytes, pyext_bytes: hooks.c. */
static int to_session(PyObject *o, void *out)
{
    if (o == Py_None) {
        PyErr_SetString(PyExc_ValueError, "no session (closed?)");
        return 0;
    }
    void *p = PyLong_AsVoidPtr(o);
    if (!p && PyErr_Occurred())
        return 0;
    if (!p) {
        PyErr_SetString(PyExc_ValueError, "no session (closed?)");
        return 0;
    }
    *(tf_session **)out = p;
    return 1;
}

static PyObject *need_library(void)
{
    PyErr_SetString(PyExc_RuntimeError, "libtestfence is not loaded (open_library first)");
    return NULL;
}

/* ARGS parsed by FORMAT (PyArg_ParseTuple's) once the library is loaded: 1, or 0 with
 * Python's error set. */
static int parse(PyObject *args, const char *format, ...)
{
    if (!lib.handle) {
        need_library();
        return 0;
    }
    va_list va;
    va_start(va, format);
    int ok = PyArg_VaParse(args, format, va);
    va_end(va);
    return ok;
}

/* open_library(path): load libtestfence from PATH (once a process). None, or OSError with
 * what is missing. */
static PyObject *py_open_library(PyObject *self, PyObject *args)
{
    const char *path;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&", pyext_bytes, &path))
        return NULL;
    if (lib.handle)
        Py_RETURN_NONE; /* one library a process: native.py loads it once */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return PyErr_Format(PyExc_OSError, "%s", dlerror());
    const char *missing = NULL;
#define TF_RESOLVE(name)                                                                           \
    if (!missing && !(*(void **)&lib.name = dlsym(h, #name)))                                      \
        missing = #name;
    TF_CALLS(TF_RESOLVE)
#undef TF_RESOLVE
    if (missing) {
        dlclose(h);
        memset(&lib, 0, sizeof lib);
        return PyErr_Format(PyExc_OSError, "%s has no %s", path, missing);
    }
    lib.handle = h;
    Py_RETURN_NONE;
}

/* The calls whose Python form is the C one: tf_X(session) -> int, bytes or None. */
#define TF_S_INT(name)                                                                             \
    static PyObject *py_##name(PyObject *self, PyObject *args)                                     \
    {                                                                                              \
        tf_session *s;                                                                             \
        (void)self;                                                                                \
        if (!parse(args, "O&", to_session, &s))                                                    \
            return NULL;                                                                           \
        return PyLong_FromLong((long)lib.name(s));                                                 \
    }
#define TF_S_STR(name)                                                                             \
    static PyObject *py_##name(PyObject *self, PyObject *args)                                     \
    {                                                                                              \
        tf_session *s;                                                                             \
        (void)self;                                                                                \
        if (!parse(args, "O&", to_session, &s))                                                    \
            return NULL;                                                                           \
        return bytes_or_none(lib.name(s));                                                         \
    }
/* tf_X(session, int) -> int; tf_X(session, size_t i) -> bytes or None. */
#define TF_SI_INT(name)                                                                            \
    static PyObject *py_##name(PyObject *self, PyObject *args)                                     \
    {                                                                                              \
        tf_session *s;                                                                             \
        int v;                                                                                     \
        (void)self;                                                                                \
        if (!parse(args, "O&i", to_session, &s, &v))                                               \
            return NULL;                                                                           \
        return PyLong_FromLong(lib.name(s, v));                                                    \
    }
#define TF_SN_STR(name)                                                                            \
    static PyObject *py_##name(PyObject *self, PyObject *args)                                     \
    {                                                                                              \
        tf_session *s;                                                                             \
        Py_ssize_t i;                                                                              \
        (void)self;                                                                                \
        if (!parse(args, "O&n", to_session, &s, &i))                                               \
            return NULL;                                                                           \
        if (i < 0)                                                                                 \
            Py_RETURN_NONE;                                                                        \
        return bytes_or_none(lib.name(s, (size_t)i));                                              \
    }

TF_S_INT(tf_error_kind)
TF_S_INT(tf_check)
TF_S_INT(tf_prepare)
TF_S_INT(tf_fence)
TF_S_INT(tf_landlock_abi)
TF_S_INT(tf_fenced)
TF_S_INT(tf_violations_load)
TF_S_INT(tf_env_count)
TF_S_STR(tf_error)
TF_S_STR(tf_warning)
TF_S_STR(tf_root)
TF_S_STR(tf_config_source)
TF_S_STR(tf_workspace)
TF_S_STR(tf_tmp)
TF_S_STR(tf_pytest_cache)
TF_S_STR(tf_shim)
TF_S_STR(tf_fence_dir)
TF_SI_INT(tf_set_backend)
TF_SI_INT(tf_status)
TF_SI_INT(tf_end_tmp)
TF_SN_STR(tf_output)
TF_SN_STR(tf_env_name)
TF_SN_STR(tf_env_value)
TF_SN_STR(tf_violation_line)

static PyObject *py_tf_api_version(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    if (!lib.handle)
        return need_library();
    return PyLong_FromLong(lib.tf_api_version());
}

static PyObject *py_tf_open(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    if (!lib.handle)
        return need_library();
    tf_session *s = lib.tf_open();
    if (!s)
        return PyErr_NoMemory();
    return PyLong_FromVoidPtr(s);
}

static PyObject *py_tf_close(PyObject *self, PyObject *args)
{
    tf_session *s;
    (void)self;
    if (!parse(args, "O&", to_session, &s))
        return NULL;
    lib.tf_close(s);
    Py_RETURN_NONE;
}

static PyObject *py_tf_attach(PyObject *self, PyObject *args)
{
    tf_session *s;
    const char *ws;
    (void)self;
    if (!parse(args, "O&O&", to_session, &s, pyext_opt_bytes, &ws))
        return NULL;
    return PyLong_FromLong(lib.tf_attach(s, ws));
}

/* tf_violation_str(session, i, field) -> bytes or None; tf_violation_int -> int (-1:
 * unknown). */
static PyObject *violation_field(PyObject *args, int as_int)
{
    tf_session *s;
    Py_ssize_t i;
    const char *field;
    if (!parse(args, "O&nO&", to_session, &s, &i, pyext_bytes, &field))
        return NULL;
    if (as_int)
        return PyLong_FromLong(i < 0 ? -1 : lib.tf_violation_int(s, (size_t)i, field));
    return bytes_or_none(i < 0 ? NULL : lib.tf_violation_str(s, (size_t)i, field));
}

static PyObject *py_tf_violation_str(PyObject *self, PyObject *args)
{
    (void)self;
    return violation_field(args, 0);
}

static PyObject *py_tf_violation_int(PyObject *self, PyObject *args)
{
    (void)self;
    return violation_field(args, 1);
}

static PyObject *py_tf_ioctl_class(PyObject *self, PyObject *args)
{
    unsigned long request;
    (void)self;
    if (!parse(args, "k", &request))
        return NULL;
    return PyLong_FromLong(lib.tf_ioctl_class(request));
}

static PyObject *py_tf_fails_first(PyObject *self, PyObject *args)
{
    const char *op, *resolved, *source;
    int flags, dirfd;
    (void)self;
    if (!parse(args, "O&iO&iO&", pyext_bytes, &op, &flags, pyext_opt_bytes, &resolved, &dirfd,
               pyext_opt_bytes, &source))
        return NULL;
    return PyLong_FromLong(lib.tf_fails_first(op, flags, resolved, dirfd, source));
}

static PyObject *py_tf_record_at(PyObject *self, PyObject *args)
{
    tf_session *s;
    const char *op, *path, *resolved, *test, *phase, *src_file, *src_func, *test_file;
    int err, by_us;
    long src_line, test_line;
    (void)self;
    if (!parse(args, "O&O&O&O&iiO&O&O&lO&O&l", to_session, &s, pyext_bytes, &op, pyext_opt_bytes,
               &path, pyext_opt_bytes, &resolved, &err, &by_us, pyext_opt_bytes, &test,
               pyext_opt_bytes, &phase, pyext_opt_bytes, &src_file, &src_line, pyext_opt_bytes,
               &src_func, pyext_opt_bytes, &test_file, &test_line))
        return NULL;
    return PyLong_FromLong(lib.tf_record_at(s, op, path, resolved, err, by_us, test, phase,
                                            src_file, src_line, src_func, test_file, test_line));
}

/* load_allow(session, [bytes]) -> tf_load(session, NULL, NULL, allow, n);
 * set_outputs(session, [bytes]) -> tf_set_outputs. */
static PyObject *with_strings(PyObject *args, int outputs)
{
    tf_session *s;
    PyObject *list;
    Py_ssize_t n;
    if (!parse(args, "O&O", to_session, &s, &list))
        return NULL;
    const char **a = pyext_string_array(list, &n);
    if (!a)
        return NULL;
    int rc =
        outputs ? lib.tf_set_outputs(s, a, (size_t)n) : lib.tf_load(s, NULL, NULL, a, (size_t)n);
    PyMem_Free(a);
    return PyLong_FromLong(rc);
}

static PyObject *py_load_allow(PyObject *self, PyObject *args)
{
    (void)self;
    return with_strings(args, 0);
}

static PyObject *py_set_outputs(PyObject *self, PyObject *args)
{
    (void)self;
    return with_strings(args, 1);
}

/* policy_entry(session, i) -> (bytes or None, kind) */
static PyObject *py_policy_entry(PyObject *self, PyObject *args)
{
    tf_session *s;
    Py_ssize_t i;
    int kind = 0;
    (void)self;
    if (!parse(args, "O&n", to_session, &s, &i))
        return NULL;
    const char *p = i < 0 ? NULL : lib.tf_policy_entry(s, (size_t)i, &kind);
    return Py_BuildValue("(Ni)", bytes_or_none(p), kind);
}

/* path_check_at(session, dirfd, path, flags) -> (rc, resolved bytes) */
static PyObject *py_path_check_at(PyObject *self, PyObject *args)
{
    tf_session *s;
    int dirfd, flags;
    const char *path;
    char resolved[4096] = "";
    (void)self;
    if (!parse(args, "O&iO&i", to_session, &s, &dirfd, pyext_bytes, &path, &flags))
        return NULL;
    int rc = lib.tf_path_check_at(s, dirfd, path, flags, resolved, sizeof resolved);
    resolved[sizeof resolved - 1] = '\0';
    return Py_BuildValue("(iy)", rc, resolved);
}

/* files_inside(session, NUL-ended paths, n) -> (rc, n bytes, each 0 or 1) */
static PyObject *py_files_inside(PyObject *self, PyObject *args)
{
    tf_session *s;
    const char *paths;
    Py_ssize_t len, n;
    (void)self;
    if (!parse(args, "O&y#n", to_session, &s, &paths, &len, &n))
        return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "a count below 0");
    unsigned char *inside = PyMem_Calloc((size_t)n + 1, 1);
    if (!inside)
        return PyErr_NoMemory();
    int rc = lib.tf_files_inside(s, paths, (size_t)len, inside, (size_t)n);
    PyObject *out = Py_BuildValue("(iy#)", rc, (const char *)inside, n);
    PyMem_Free(inside);
    return out;
}

/* test_split(value) -> (length of the test's id, phase bytes or None) */
static PyObject *py_test_split(PyObject *self, PyObject *args)
{
    const char *value;
    size_t n = 0;
    (void)self;
    if (!parse(args, "O&", pyext_opt_bytes, &value))
        return NULL;
    const char *phase = lib.tf_test_split(value, &n);
    return Py_BuildValue("(nN)", (Py_ssize_t)n, bytes_or_none(phase));
}

/* A malloc'd text of the library's, as bytes (None for NULL), freed. */
static PyObject *taken_text(char *p)
{
    PyObject *out = bytes_or_none(p);
    if (p)
        lib.tf_free(p);
    return out;
}

/* planted(session) -> (count, text bytes or None: it could not be checked) */
static PyObject *py_planted(PyObject *self, PyObject *args)
{
    tf_session *s;
    int count = 0;
    (void)self;
    if (!parse(args, "O&", to_session, &s))
        return NULL;
    char *p = lib.tf_planted(s, &count);
    return Py_BuildValue("(iN)", count, taken_text(p));
}

/* summary(session, status) -> text bytes or None (an error: tf_error says it) */
static PyObject *py_summary(PyObject *self, PyObject *args)
{
    tf_session *s;
    int status;
    (void)self;
    if (!parse(args, "O&i", to_session, &s, &status))
        return NULL;
    return taken_text(lib.tf_summary(s, status));
}

/* audit_filter_add(hook, [bytes]) -> bool: hooks.c, with this library's filter. */
static PyObject *py_audit_filter_add(PyObject *self, PyObject *args)
{
    (void)self;
    if (!lib.handle)
        return need_library();
    return pyext_audit_filter_add(args, lib.tf_audit_filter_set, lib.tf_audit_filter);
}

static PyMethodDef methods[] = {
#define TF_METHOD(name) {#name, py_##name, METH_VARARGS, NULL},
    TF_METHOD(open_library) TF_METHOD(tf_api_version) TF_METHOD(tf_open) TF_METHOD(tf_close)
        TF_METHOD(tf_error) TF_METHOD(tf_error_kind) TF_METHOD(tf_warning) TF_METHOD(tf_check)
            TF_METHOD(tf_prepare) TF_METHOD(tf_fence) TF_METHOD(tf_attach) TF_METHOD(tf_root)
                TF_METHOD(tf_config_source) TF_METHOD(tf_workspace) TF_METHOD(tf_tmp) TF_METHOD(
                    tf_output) TF_METHOD(tf_pytest_cache) TF_METHOD(tf_shim) TF_METHOD(tf_fence_dir)
                    TF_METHOD(tf_landlock_abi) TF_METHOD(tf_set_backend) TF_METHOD(
                        tf_env_count) TF_METHOD(tf_env_name) TF_METHOD(tf_env_value)
                        TF_METHOD(tf_fenced) TF_METHOD(tf_record_at) TF_METHOD(
                            tf_ioctl_class) TF_METHOD(tf_fails_first) TF_METHOD(tf_violations_load)
                            TF_METHOD(tf_violation_str) TF_METHOD(tf_violation_line) TF_METHOD(
                                tf_violation_int) TF_METHOD(tf_status) TF_METHOD(tf_end_tmp)
                                TF_METHOD(load_allow) TF_METHOD(set_outputs) TF_METHOD(policy_entry)
                                    TF_METHOD(path_check_at) TF_METHOD(files_inside)
                                        TF_METHOD(test_split) TF_METHOD(planted) TF_METHOD(summary)
                                            TF_METHOD(audit_filter_add) TF_METHOD(shim_open)
                                                TF_METHOD(shim_patchable) TF_METHOD(shim_patch)
                                                    TF_METHOD(shim_rescan) TF_METHOD(shim_attach)
                                                        TF_METHOD(shim_frames)
                                                            TF_METHOD(shim_frames_off)
#undef TF_METHOD
                                                                {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_testfence._native",
                                    "libtestfence and the shim for the testfence plugin, "
                                    "compiled (native.py chooses it over ctypes).",
                                    -1,
                                    methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module);
    /* native.py's check that this file is its own version's (a stale one is refused). */
    if (m && PyModule_AddIntConstant(m, "BINDING_VERSION", PYEXT_BINDING_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#include "apy_writes.h"

#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_scope.h"
#include "apy_str.h"

#include <string.h>

enum py_mode { MODE_ALWAYS, MODE_OPEN, MODE_OSOPEN, MODE_ARCHIVE, MODE_DBM, MODE_DBM_C };

/* A function whose arguments are written to. Targets: positional index or keyword; the mode
 * argument (when the mode decides) is at mode_pos or keyword mode_kw. */
typedef struct py_writer {
    const char *name;
    enum py_mode mode;
    signed char pos[2];
    const char *kw[2];
    signed char mode_pos;
    const char *mode_kw;
} py_writer;

static const py_writer writers[] = {
    {"open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"io.open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"builtins.open", MODE_OPEN, {0, -1}, {"file", NULL}, 1, "mode"},
    {"codecs.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"gzip.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"bz2.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"lzma.open", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"gzip.GzipFile", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"bz2.BZ2File", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"lzma.LZMAFile", MODE_OPEN, {0, -1}, {"filename", NULL}, 1, "mode"},
    {"os.open", MODE_OSOPEN, {0, -1}, {"path", NULL}, 1, "flags"},
    {"os.remove", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.unlink", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.rmdir", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.removedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}, -1, NULL},
    {"os.mkdir", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.makedirs", MODE_ALWAYS, {0, -1}, {"name", NULL}, -1, NULL},
    {"os.truncate", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.mkfifo", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"os.rename", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"os.renames", MODE_ALWAYS, {0, 1}, {"old", "new"}, -1, NULL},
    {"os.replace", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"os.symlink", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"os.link", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copy", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copy2", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copyfile", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copytree", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copymode", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.copystat", MODE_ALWAYS, {1, -1}, {"dst", NULL}, -1, NULL},
    {"shutil.move", MODE_ALWAYS, {0, 1}, {"src", "dst"}, -1, NULL},
    {"shutil.rmtree", MODE_ALWAYS, {0, -1}, {"path", NULL}, -1, NULL},
    {"shutil.make_archive", MODE_ALWAYS, {0, -1}, {"base_name", NULL}, -1, NULL},
    /* logging: a file handler appends to its file (at the first record when delay=True) */
    {"logging.basicConfig", MODE_ALWAYS, {-1, -1}, {"filename", NULL}, -1, NULL},
    {"logging.FileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    {"logging.handlers.RotatingFileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    {"logging.handlers.TimedRotatingFileHandler",
     MODE_ALWAYS,
     {0, -1},
     {"filename", NULL},
     -1,
     NULL},
    {"logging.handlers.WatchedFileHandler", MODE_ALWAYS, {0, -1}, {"filename", NULL}, -1, NULL},
    /* archives and databases: by their mode or flag */
    {"zipfile.ZipFile", MODE_ARCHIVE, {0, -1}, {"file", NULL}, 1, "mode"},
    {"zipfile.PyZipFile", MODE_ARCHIVE, {0, -1}, {"file", NULL}, 1, "mode"},
    {"tarfile.open", MODE_ARCHIVE, {0, -1}, {"name", NULL}, 1, "mode"},
    {"tarfile.TarFile", MODE_ARCHIVE, {0, -1}, {"name", NULL}, 1, "mode"},
    {"shelve.open", MODE_DBM_C, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.open", MODE_DBM, {0, -1}, {"file", NULL}, 1, "flag"},
    {"dbm.gnu.open", MODE_DBM, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.ndbm.open", MODE_DBM, {0, -1}, {"filename", NULL}, 1, "flag"},
    {"dbm.dumb.open", MODE_DBM_C, {0, -1}, {"file", NULL}, 1, "flag"},
    {"sqlite3.connect", MODE_ALWAYS, {0, -1}, {"database", NULL}, -1, NULL},
};

/* Methods of a path object that write to it (and, for rename/replace, to an argument). */
static const py_writer path_methods[] = {
    {"write_text", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"write_bytes", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"touch", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"mkdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"unlink", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"rmdir", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"symlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"hardlink_to", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},
    {"rename", MODE_ALWAYS, {0, -1}, {"target", NULL}, -1, NULL},
    {"replace", MODE_ALWAYS, {0, -1}, {"target", NULL}, -1, NULL},
    {"open", MODE_OPEN, {-1, -1}, {NULL, NULL}, 0, "mode"},
    {"write", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL},  /* py.path.local.write */
    {"ensure", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL}, /* py.path.local.ensure */
    {"remove", MODE_ALWAYS, {-1, -1}, {NULL, NULL}, -1, NULL}, /* py.path.local.remove */
};

/* tempfile functions; dir_pos is dir='s positional index. */
static const struct py_temp {
    const char *name;
    int dir_pos;
} temps[] = {
    {"tempfile.mkdtemp", 2},
    {"tempfile.mkstemp", 2},
    {"tempfile.mktemp", 2},
    {"tempfile.NamedTemporaryFile", 6},
    {"tempfile.TemporaryDirectory", 2},
    {"tempfile.TemporaryFile", 6},
    {"tempfile.SpooledTemporaryFile", 7},
};

/* Is this call a write, judging by its mode argument? An unknown mode is not. */
static bool mode_writes(apy *P, uint32_t args, const py_writer *w, int shift)
{
    uint32_t a = 0;
    apy_str s;
    if (w->mode == MODE_ALWAYS)
        return true;
    apy_arg st = apy_get_arg(P, args, w->mode_pos < 0 ? -1 : w->mode_pos - shift, w->mode_kw, &a);
    if (st != APY_ARG_FOUND) /* absent: the default mode */
        return st == APY_ARG_ABSENT && w->mode == MODE_DBM_C;
    if (w->mode == MODE_OSOPEN) {
        static const char *const flags[] = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"};
        char text[256];
        size_t n = apy_len(P, a) < sizeof text ? apy_len(P, a) : sizeof text - 1;
        memcpy(text, apy_text(P, a), n);
        text[n] = '\0';
        for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
            if (strstr(text, flags[i]))
                return true;
        return false;
    }
    const char *m = apy_literal_arg(P, a, &s);
    if (!m)
        return false;
    switch (w->mode) {
    case MODE_OPEN:
        return strpbrk(m, "wax+") != NULL;
    case MODE_ARCHIVE:
        return m[0] == 'w' || m[0] == 'a' || m[0] == 'x';
    case MODE_DBM:
        return m[0] == 'c' || m[0] == 'n' || m[0] == 'w';
    default: /* MODE_DBM_C: every flag but 'r' creates or writes */
        return m[0] != 'r';
    }
}

/* os.* calls with dir_fd= resolve relative paths against a directory fd. */
static bool relative_to_fd(const apy *P, uint32_t args)
{
    static const char *const kws[] = {"dir_fd", "src_dir_fd", "dst_dir_fd"};
    uint32_t a;
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (apy_get_arg(P, args, -1, kws[i], &a) != APY_ARG_ABSENT)
            return true;
    return false;
}

/* sqlite3.connect(":memory:") and read-only URIs create nothing. */
static bool sqlite_in_memory(apy *P, uint32_t call)
{
    uint32_t a = 0;
    apy_str s;
    if (apy_get_arg(P, apy_kid(P, call, 1), 0, "database", &a) != APY_ARG_FOUND)
        return true;
    const char *t = apy_literal_arg(P, a, &s);
    return t &&
           (!t[0] || !strcmp(t, ":memory:") || strstr(t, "mode=ro") || strstr(t, "mode=memory"));
}

/* rmtree(os.path.join(os.getcwd(), name)), rmtree(Path.cwd() / name): the working directory
 * with a name that is not known joined to it ('*'): a name that may be empty deletes the working
 * directory itself. Any other unknown path stays unknown. */
static void cwd_join_base(apy *P, uint32_t a, tf_pathval *v)
{
    uint32_t base = 0;
    char name[APY_NAME_MAX * 2];
    if (apy_kind(P, a) == N_BINOP && apy_node(P, a)->op == OP_SLASH)
        base = apy_kid(P, a, 0);
    else if (apy_kind(P, a) == N_CALL && apy_canonical(P, apy_kid(P, a, 0), name, sizeof name) &&
             (!strcmp(name, "os.path.join") || !strcmp(name, "pathlib.Path")))
        apy_get_arg(P, apy_kid(P, a, 1), 0, NULL, &base);
    if (!base)
        return;
    apy_eval(P, base, 0, v);
    if (v->kind != TF_PATH_CWD || v->text[0]) {
        tf_pv_unknown(v);
        return;
    }
    tf_pv_join(v, "*", 1);
    v->wild = true;
}

/* shutil.rmtree, os.removedirs: recursive deletions (TF110 judges what they delete). */
static bool on_deletion(apy *P, uint32_t call, const char *name)
{
    uint32_t a = 0;
    tf_pathval v;
    if ((name[0] != 's' || strcmp(name, "shutil.rmtree")) &&
        (name[0] != 'o' || strcmp(name, "os.removedirs"))) /* every call: first letter first */
        return false;
    if (relative_to_fd(P, apy_kid(P, call, 1)) ||
        apy_get_arg(P, apy_kid(P, call, 1), 0, name[0] == 's' ? "path" : "name", &a) !=
            APY_ARG_FOUND)
        return true;
    apy_eval(P, a, 0, &v);
    if (v.kind == TF_PATH_UNKNOWN)
        cwd_join_base(P, a, &v);
    apy_write_to(P, call, name, &v, FF_DELETE);
    return true;
}

bool apy_on_writer(apy *P, uint32_t call, const char *name)
{
    uint32_t args = apy_kid(P, call, 1);
    if (on_deletion(P, call, name))
        return true;
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        const py_writer *w = &writers[i];
        if (w->name[0] != name[0] || strcmp(name, w->name))
            continue;
        if (relative_to_fd(P, args) ||
            (!strcmp(name, "sqlite3.connect") && sqlite_in_memory(P, call)))
            return true;
        if (mode_writes(P, args, w, 0))
            for (int t = 0; t < 2; t++)
                apy_write_arg(P, call, w->pos[t], w->kw[t], w->name, t == 0);
        return true;
    }
    return false;
}

/* A unique temp file or dir without dir= under the tests: a style finding (tmp_path). */
bool apy_on_temp(apy *P, uint32_t call, const char *name)
{
    for (size_t i = 0; i < sizeof temps / sizeof *temps; i++) {
        if (temps[i].name[0] != name[0] || strcmp(name, temps[i].name))
            continue;
        uint32_t a = 0;
        apy_arg s = apy_get_arg(P, apy_kid(P, call, 1), temps[i].dir_pos, "dir", &a);
        if (s == APY_ARG_FOUND && apy_kind(P, a) == N_CONST && apy_node(P, a)->op == KW_NONE_)
            s = APY_ARG_ABSENT; /* dir=None is the system temp dir */
        if (s == APY_ARG_ABSENT)
            apy_fact(P, FACT_TEMP, 0, call, name, NULL);
        return true;
    }
    return false;
}

/* receiver.method(...) where the receiver is a known path object. */
void apy_on_path_method(apy *P, uint32_t call, uint32_t fn)
{
    uint32_t attr = apy_kid(P, fn, 1), args = apy_kid(P, call, 1);
    for (size_t i = 0; i < sizeof path_methods / sizeof *path_methods; i++) {
        const py_writer *w = &path_methods[i];
        if (!apy_text_is(P, attr, w->name))
            continue;
        tf_pathval recv;
        apy_eval(P, apy_kid(P, fn, 0), 0, &recv);
        /* a parameter of unknown type: only the methods no string has (write_text..) */
        bool param = recv.kind == TF_PATH_PARAM && i < 8;
        if ((!recv.object && !param) || recv.kind == TF_PATH_UNKNOWN || !mode_writes(P, args, w, 0))
            return;
        apy_write_to(P, call, w->name, &recv, 0);
        apy_write_arg(P, call, w->pos[0], w->kw[0], w->name, false);
        return;
    }
}

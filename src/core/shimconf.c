#include "shimconf.h"
#include "platform.h"

#include "fileio.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* From the installed CLI's directory to the shim's (set by cmake/install.cmake). */
#ifndef TESTFENCE_SHIM_FROM_BIN
#define TESTFENCE_SHIM_FROM_BIN "../lib/testfence"
#endif

/* The format: a header line, then one "key<TAB>field<TAB>..." line per item.
 * Fields escape backslash, tab and newline so any path survives. */
#define HEADER "testfence-shim 1\n"

static void put_field(FILE *f, const char *s)
{
    fputc('\t', f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static void put_conf(FILE *f, const struct shimconf *c)
{
    fputs(HEADER "mode", f);
    put_field(f, c->mode == SHIM_BLOCK ? "block" : "diagnose");
    fputs("\nprecheck_meta", f);
    put_field(f, c->precheck_meta ? "1" : "0");
    if (c->protect)
        fputs("\nprotect\t1", f);
    fputs("\ntest_env", f);
    put_field(f, c->test_env);
    if (c->sink[0]) {
        fputs("\nsink", f);
        put_field(f, c->sink_socket ? "socket" : "log");
        put_field(f, c->sink);
    }
    fputs("\nroot", f);
    put_field(f, c->policy.root);
    for (size_t i = 0; i < c->policy.n; i++) {
        const struct policy_entry *e = &c->policy.entries[i];
        fputs("\nentry", f);
        put_field(f, e->is_dir ? "dir" : "file");
        put_field(f, policy_origin_name(e->origin));
        put_field(f, e->path);
        put_field(f, e->given);
    }
    for (size_t i = 0; i < c->policy.nquiet; i++) {
        const struct policy_quiet *q = &c->policy.quiet[i];
        fputs("\nquiet", f);
        put_field(f, q->is_dir ? "dir" : "file");
        put_field(f, q->tool);
        put_field(f, q->commands ? q->commands : "");
        put_field(f, q->path);
    }
    fputc('\n', f);
}

int shimconf_write(int dirfd, const char *name, const struct shimconf *conf, tf_err *err)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create %s", name);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return tf_errnof(err, errno, "cannot write %s", name);
    }
    put_conf(f, conf);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tf_errnof(err, errno, "cannot write %s", name);
    return 0;
}

/* Split one line in place into at most MAX unescaped fields. */
static size_t split_fields(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *w = line;
    fields[n++] = w;
    for (char *r = line; *r; r++) {
        if (*r == '\t') {
            *w++ = '\0';
            if (n == max)
                return max + 1;
            fields[n++] = w;
        } else if (*r == '\\' && (r[1] == '\\' || r[1] == 't' || r[1] == 'n')) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : '\\';
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return n;
}

static int parse_origin(const char *s, enum policy_origin *o)
{
    const enum policy_origin all[] = {POLICY_PROJECT, POLICY_ALLOW, POLICY_SYSTEM, POLICY_TMP,
                                      POLICY_OUTPUT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, policy_origin_name(all[i]))) {
            *o = all[i];
            return 0;
        }
    return -1;
}

/* "sink<TAB>socket|log<TAB>/absolute/path". */
static int parse_sink(struct shimconf *c, const char *kind, const char *path, tf_err *err)
{
    if ((strcmp(kind, "socket") && strcmp(kind, "log")) || !platform_is_absolute(path) ||
        strlen(path) >= sizeof c->sink)
        return tf_errf(err, "bad sink \"%.20s\"", kind);
    c->sink_socket = !strcmp(kind, "socket");
    snprintf(c->sink, sizeof c->sink, "%s", path);
    return 0;
}

static int parse_line(char *line, struct shimconf *c, tf_err *err)
{
    char *f[6];
    size_t n = split_fields(line, f, 5);
    enum policy_origin o;
    if (n == 2 && !strcmp(f[0], "mode") && (!strcmp(f[1], "block") || !strcmp(f[1], "diagnose")))
        c->mode = !strcmp(f[1], "block") ? SHIM_BLOCK : SHIM_DIAGNOSE;
    else if (n == 2 && !strcmp(f[0], "precheck_meta") && (!strcmp(f[1], "0") || !strcmp(f[1], "1")))
        c->precheck_meta = f[1][0] == '1';
    else if (n == 2 && !strcmp(f[0], "protect") && !strcmp(f[1], "1"))
        c->protect = true;
    else if (n == 2 && !strcmp(f[0], "test_env") && strlen(f[1]) < sizeof c->test_env)
        snprintf(c->test_env, sizeof c->test_env, "%s", f[1]);
    else if (n == 3 && !strcmp(f[0], "sink"))
        return parse_sink(c, f[1], f[2], err);
    else if (n == 2 && !strcmp(f[0], "root") && !c->policy.root && platform_is_absolute(f[1]))
        return (c->policy.root = strdup(f[1])) ? 0 : tf_errf(err, "out of memory");
    else if (n == 5 && !strcmp(f[0], "entry") && parse_origin(f[2], &o) == 0 &&
             (!strcmp(f[1], "dir") || !strcmp(f[1], "file")))
        return policy_add_resolved(&c->policy, f[3], f[4], o, !strcmp(f[1], "dir"), err);
    else if (n == 5 && !strcmp(f[0], "quiet") && platform_is_absolute(f[4]) &&
             (!strcmp(f[1], "dir") || !strcmp(f[1], "file")))
        return policy_add_quiet(&c->policy, f[4], !strcmp(f[1], "dir"), f[2], f[3][0] ? f[3] : NULL,
                                err);
    else
        return tf_errf(err, "unexpected line \"%.80s\"", f[0]);
    return 0;
}

int shimconf_parse(const char *buf, size_t len, struct shimconf *c, tf_err *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->test_env, sizeof c->test_env, "%s", SHIMCONF_DEFAULT_TEST_ENV);
    size_t hl = strlen(HEADER);
    if (len < hl || memcmp(buf, HEADER, hl) != 0)
        return tf_errf(err, "not a testfence shim configuration");
    char *text = strndup(buf + hl, len - hl);
    if (!text)
        return tf_errf(err, "out of memory");
    int rc = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l && rc == 0; l = strtok_r(NULL, "\n", &save))
        rc = parse_line(l, c, err);
    free(text);
    if (rc == 0 && !c->policy.root)
        rc = tf_errf(err, "no root in the shim configuration");
    if (rc < 0)
        policy_free(&c->policy);
    return rc;
}

int shimconf_load(const char *path, struct shimconf *conf, tf_err *err)
{
    char *buf;
    size_t len;
    if (fileio_read_all(path, SHIMCONF_MAX, &buf, &len, err) < 0)
        return -1;
    int rc = shimconf_parse(buf, len, conf, err);
    free(buf);
    return rc;
}

/* LD_PRELOAD splits on spaces and colons: a path holding either cannot be preloaded. */
static bool preloadable(const char *path)
{
    return path[0] == '/' && !strpbrk(path, " :\t\n") && access(path, R_OK) == 0;
}

int shimconf_locate_near(const char *dir, char *out, size_t len, tf_err *err)
{
    char cand[PATH_MAX];
    /* The build dir (all side by side), beside an installed libtestfence.so, and from the
     * installed CLI's bindir to the shim's directory (cmake/install.cmake). */
    const char *where[] = {"", "testfence/", TESTFENCE_SHIM_FROM_BIN "/"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        int k = snprintf(cand, sizeof cand, "%s/%s" SHIMCONF_SO, dir, where[i]);
        char real[PATH_MAX];
        if (k > 0 && (size_t)k < sizeof cand && realpath(cand, real) && preloadable(real)) {
            if (strlen(real) >= len)
                break;
            snprintf(out, len, "%s", real);
            return 0;
        }
    }
    return tf_errf(err,
                   "the diagnostics shim " SHIMCONF_SO " was not found in %s, %s/testfence or "
                   "%s/" TESTFENCE_SHIM_FROM_BIN " (or its path holds a space or a colon)",
                   dir, dir, dir);
}

int shimconf_locate(char *out, size_t len, tf_err *err)
{
    char exe[PATH_MAX], dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return tf_errnof(err, errno, "cannot find the testfence binary");
    exe[n] = '\0';
    path_dirname(dir, sizeof dir, exe);
    return shimconf_locate_near(dir, out, len, err);
}

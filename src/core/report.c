#include "report.h"

#include "colour.h"
#include "hint.h"
#include "outpath.h"
#include "path.h"
#include "base/text.h"
#include "base/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The summary stays readable whatever the log holds: this many tests, this many writes each. */
enum { SHOW_TESTS = 20, SHOW_WRITES = 10 };

/* ---- loading --------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (h ^ 0xff) * 1099511628211u; /* a separator, so ("ab","c") != ("a","bc") */
}

/* A distinct write: the same test, call, target and line of the project (two lines writing one
 * file are two fixes to make, each shown). */
static uint64_t key_hash(const char *test, const char *op, const char *resolved,
                         const char *src_file, long src_line)
{
    uint64_t h = fnv(fnv(fnv(14695981039346656037u, test ? test : "\x01"), op), resolved);
    return src_file ? fnv(h, src_file) ^ (uint64_t)src_line : h;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static bool same(const struct report_entry *e, const struct vlog_record *rec)
{
    return same_str(e->test, rec->test) && !strcmp(e->op, rec->op) &&
           !strcmp(e->resolved, rec->resolved) && same_str(e->src_file, rec->src_file) &&
           e->src_line == rec->src_line;
}

static int grow_index(struct report *r)
{
    size_t n = r->nslots ? r->nslots * 2 : 1024;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < r->n; i++) {
        const struct report_entry *e = &r->v[i];
        size_t k = key_hash(e->test, e->op, e->resolved, e->src_file, e->src_line) & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(r->slots);
    r->slots = s;
    r->nslots = n;
    return 0;
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    *oom |= !d;
    return d;
}

static void entry_free(struct report_entry *e)
{
    char *all[] = {e->test, e->phase,      e->op,      e->path,     e->resolved, e->blocked_by,
                   e->exe,  e->first_time, e->cmdline, e->src_file, e->src_func, e->test_file};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
}

static bool protect_record(const struct vlog_record *rec)
{
    return rec->blocked_by && !strcmp(rec->blocked_by, "protect");
}

static int add_entry(struct report *r, const struct vlog_record *rec)
{
    struct report_entry *v = vec_grow(r->v, &r->cap, r->n, sizeof *v);
    if (!v)
        return -1;
    r->v = v;
    bool oom = false;
    struct report_entry *e = &r->v[r->n];
    *e = (struct report_entry){
        .test = dup_or_null(rec->test, &oom),
        .phase = dup_or_null(rec->phase, &oom),
        .op = dup_or_null(rec->op, &oom),
        .path = dup_or_null(rec->path ? rec->path : "", &oom),
        .resolved = dup_or_null(rec->resolved, &oom),
        .blocked_by = dup_or_null(rec->blocked_by, &oom),
        .exe = dup_or_null(rec->exe ? rec->exe : "", &oom),
        .first_time = dup_or_null(rec->time ? rec->time : "", &oom),
        .cmdline = protect_record(rec) ? dup_or_null(rec->cmdline, &oom) : NULL,
        .src_file = dup_or_null(rec->src_file, &oom),
        .src_func = dup_or_null(rec->src_func, &oom),
        .test_file = dup_or_null(rec->test_file, &oom),
        .src_line = rec->src_line,
        .test_line = rec->test_line,
        .err = rec->err,
        .count = 1,
        .seq = r->n,
    };
    if (oom) {
        entry_free(e);
        return -1;
    }
    r->n++;
    return 0;
}

/* A repeat of E whose test's own line is known when E's first record's was not: E takes it.
 * -1: no memory. */
static int where_later(struct report_entry *e, const struct vlog_record *rec)
{
    bool oom = false;
    if (!e->test_file && rec->test_file) {
        e->test_file = dup_or_null(rec->test_file, &oom);
        e->test_line = rec->test_line;
    }
    return oom ? -1 : 0;
}

static int take(const struct vlog_record *rec, void *ctx)
{
    struct report *r = ctx;
    r->total++;
    r->unattributed += rec->test == NULL;
    if ((r->n + 1) * 2 > r->nslots && grow_index(r) < 0)
        return -1;
    size_t k =
        key_hash(rec->test, rec->op, rec->resolved, rec->src_file, rec->src_line) & (r->nslots - 1);
    for (; r->slots[k]; k = (k + 1) & (r->nslots - 1))
        if (same(&r->v[r->slots[k] - 1], rec)) {
            r->v[r->slots[k] - 1].count++;
            return where_later(&r->v[r->slots[k] - 1], rec);
        }
    if (r->n >= REPORT_MAX_DISTINCT) {
        r->dropped++;
        return 0;
    }
    if (add_entry(r, rec) < 0)
        return -1;
    r->slots[k] = r->n;
    return 0;
}

int report_load(struct report *r, int dirfd, const char *name, tf_err *err)
{
    memset(r, 0, sizeof *r);
    tf_err e;
    if (vlog_read(dirfd, name, REPORT_MAX_LOG, take, r, &r->stats, &e) < 0) {
        if (strstr(e.msg, "out of memory"))
            return tf_errf(err, "%s", e.msg);
        r->log_unreadable = true;
        snprintf(r->log_error, sizeof r->log_error, "%s", e.msg);
    }
    return 0;
}

void report_free(struct report *r)
{
    for (size_t i = 0; i < r->n; i++)
        entry_free(&r->v[i]);
    free(r->v);
    free(r->slots);
    memset(r, 0, sizeof *r);
}

/* ---- ordering: tests in the order they first hit the fence, outside any test last ---- */

static int by_test(const void *a, const void *b)
{
    const struct report_entry *x = *(struct report_entry *const *)a;
    const struct report_entry *y = *(struct report_entry *const *)b;
    if (!x->test != !y->test)
        return x->test ? -1 : 1;
    int c = x->test ? strcmp(x->test, y->test) : 0;
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_group(const void *a, const void *b)
{
    const struct report_entry *x = *(struct report_entry *const *)a;
    const struct report_entry *y = *(struct report_entry *const *)b;
    if (x->gseq != y->gseq)
        return x->gseq < y->gseq ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

struct report_entry **report_sorted(const struct report *r)
{
    struct report_entry **s = malloc((r->n ? r->n : 1) * sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        s[i] = &r->v[i];
    qsort(s, r->n, sizeof *s, by_test);
    for (size_t i = 0, end; i < r->n; i = end) {
        end = report_group_end(s, r->n, i);
        for (size_t k = i; k < end; k++)
            s[k]->gseq = s[i]->test ? s[i]->seq : SIZE_MAX;
    }
    qsort(s, r->n, sizeof *s, by_group);
    return s;
}

size_t report_group_end(struct report_entry **s, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && same_str(s[j]->test, s[i]->test))
        j++;
    return j;
}

/* ---- the summary ----------------------------------------------------------- */

static const char unshimmed_note[] =
    "testfence: programs that run without the shim (static binaries, a cleared environment\n"
    "           or LD_PRELOAD) are still fenced by the kernel, but their blocked writes are\n"
    "           not recorded, so this list may be incomplete.\n";

static const char weak_note[] =
    "testfence: WARNING: --backend preload: the shim blocked these writes itself; static\n"
    "           binaries, raw syscalls and processes with a cleared environment were NOT\n"
    "           fenced. Use the default landlock backend where the kernel supports it.\n";

bool report_outlived(const struct report_entry *e)
{
    return !strcmp(e->op, "outlived") && !strcmp(e->blocked_by, "testfence");
}

bool report_protected(const struct report_entry *e)
{
    return !strcmp(e->blocked_by, "protect");
}

static const char leftover_hint[] =
    "stop what the test starts before it ends: terminate it and wait for it in the fixture's "
    "teardown (or a finally block)";

const char *report_hint(const struct report_entry *e, const struct report_run *run)
{
    if (report_outlived(e))
        return leftover_hint;
    if (!strcmp(e->blocked_by, "protect"))
        return hint_protected(e->exe, e->resolved, e->cmdline);
    return hint_for(e->op, e->resolved, run->root, run->home, e->test);
}

static void print_entry(FILE *f, const struct report_entry *e, const struct report_run *run)
{
    char path[1100], given[1100], en[32];
    if (report_outlived(e)) {
        vlog_printable(path, sizeof path, e->path);
        fprintf(f, "    %-10s %s%s%s (still running when the command exited: killed)\n", e->op,
                colour_if(run->colour, COLOUR_BOLD), path, colour_if(run->colour, COLOUR_OFF));
        return;
    }
    vlog_printable(path, sizeof path, e->resolved);
    fprintf(f, "    %-10s %s%s%s (%s%s)", e->op, colour_if(run->colour, COLOUR_BOLD), path,
            colour_if(run->colour, COLOUR_OFF), vlog_errname(e->err, en, sizeof en),
            !strcmp(e->blocked_by, "shim")    ? ", refused by the shim"
            : !report_protected(e)            ? ""
            : hint_protected_dir(e->resolved) ? ", a directory of your protected test files"
                                              : ", your protected test file");
    if (e->count > 1)
        fprintf(f, " x%zu", e->count);
    if (!e->test) {
        vlog_printable(given, sizeof given, path_base(e->exe));
        fprintf(f, " by %s", given);
    }
    fputc('\n', f);
}

size_t report_group_writes(struct report_entry **s, size_t i, size_t end)
{
    size_t writes = 0;
    for (size_t k = i; k < end; k++)
        writes += report_outlived(s[k]) ? 0 : s[k]->count;
    return writes;
}

size_t report_group_leftovers(struct report_entry **s, size_t i, size_t end)
{
    size_t n = 0;
    for (size_t k = i; k < end; k++)
        n += report_outlived(s[k]) ? s[k]->count : 0;
    return n;
}

/* "      at conftest.py:12 in pytest_configure" under a write that says where it came from. */
static void print_where(FILE *f, const struct report_entry *e)
{
    char where[800];
    if (hint_where(where, sizeof where, e->src_file, e->src_line, e->src_func, e->test_file,
                   e->test_line) > 0)
        fprintf(f, "      at %s\n", where);
}

void report_print_group(FILE *f, struct report_entry **s, size_t i, size_t end,
                        const struct report_run *run)
{
    char test[700];
    size_t writes = report_group_writes(s, i, end), left = report_group_leftovers(s, i, end);
    size_t prot = 0;
    for (size_t k = i; k < end; k++)
        prot += report_protected(s[k]) ? s[k]->count : 0;
    vlog_printable(test, sizeof test, s[i]->test ? s[i]->test : "(outside any test)");
    fprintf(f, "  %s%s%s: ", colour_if(run->colour, COLOUR_RED), test,
            colour_if(run->colour, COLOUR_OFF));
    if (writes > prot)
        fprintf(f, "%zu blocked write%s%s", writes - prot, writes - prot == 1 ? "" : "s",
                prot || left ? ", " : "");
    if (prot)
        fprintf(f, "%zu refused change%s to protected files%s", prot, prot == 1 ? "" : "s",
                left ? ", " : "");
    if (left)
        fprintf(f, "%zu process%s left running", left, left == 1 ? "" : "es");
    fputc('\n', f);
    const char *last_hint = NULL;
    for (size_t k = i; k < end && k < i + SHOW_WRITES; k++) {
        print_entry(f, s[k], run);
        print_where(f, s[k]);
        const char *h = report_hint(s[k], run);
        if (h != last_hint)
            fprintf(f, "      %show to fix:%s %s\n", colour_if(run->colour, COLOUR_CYAN),
                    colour_if(run->colour, COLOUR_OFF), h);
        last_hint = h;
    }
    if (end - i > SHOW_WRITES)
        fprintf(f, "    ... and %zu more distinct writes (see report.json)\n",
                end - i - SHOW_WRITES);
}

static void print_groups(FILE *f, const struct report *r, const struct report_run *run)
{
    struct report_entry **s = report_sorted(r);
    if (!s)
        return;
    size_t groups = 0;
    for (size_t i = 0; i < r->n; i = report_group_end(s, r->n, i), groups++)
        if (groups < SHOW_TESTS)
            report_print_group(f, s, i, report_group_end(s, r->n, i), run);
    if (groups > SHOW_TESTS)
        fprintf(f, "  ... and %zu more tests (see report.json)\n", groups - SHOW_TESTS);
    free(s);
}

/* The first line: how many writes outside were blocked, how many changes to the user's
 * protected files refused (PROT of WRITES), how many processes killed (LEFT). */
static void print_headline(FILE *f, const struct report *r, const struct report_run *run,
                           size_t writes, size_t prot, size_t left)
{
    const char *red = colour_if(run->colour, COLOUR_RED), *off = colour_if(run->colour, COLOUR_OFF);
    size_t out = writes - prot;
    if (out && prot)
        fprintf(f,
                "\n%stestfence: %zu write%s outside the writable set and %zu change%s to your "
                "protected test files %s blocked%s (%zu distinct):\n",
                red, out, out == 1 ? "" : "s", prot, prot == 1 ? "" : "s",
                writes == 1 ? "was" : "were", off, r->n);
    else if (out)
        fprintf(
            f, "\n%stestfence: %zu write%s outside the writable set %s blocked%s (%zu distinct):\n",
            red, out, out == 1 ? "" : "s", out == 1 ? "was" : "were", off, r->n);
    else if (prot)
        fprintf(f,
                "\n%stestfence: %zu change%s to your protected test files (protect in the config) "
                "%s refused%s (%zu distinct):\n",
                red, prot, prot == 1 ? "" : "s", prot == 1 ? "was" : "were", off, r->n);
    else if (left)
        fprintf(f, "\n%stestfence: %zu process%s outlived the command and %s killed:%s\n", red,
                left, left == 1 ? "" : "es", left == 1 ? "was" : "were", off);
    else
        fprintf(f, "\ntestfence: no blocked writes were recorded\n");
}

void report_print(FILE *f, const struct report *r, const struct report_run *run)
{
    bool noisy = r->total || r->stats.malformed || r->log_unreadable || r->stats.cut;
    if (!noisy && !run->weak)
        return;
    size_t left = 0, prot = 0;
    for (size_t i = 0; i < r->n; i++) {
        left += report_outlived(&r->v[i]) ? r->v[i].count : 0;
        prot += report_protected(&r->v[i]) ? r->v[i].count : 0;
    }
    size_t writes = r->total - left;
    print_headline(f, r, run, writes, prot, left);
    print_groups(f, r, run);
    if (r->dropped)
        fprintf(f, "testfence: %zu more records of other writes were counted, not listed\n",
                r->dropped);
    if (r->stats.malformed)
        fprintf(f, "testfence: %zu malformed line%s in the violation log %s skipped\n",
                r->stats.malformed, r->stats.malformed == 1 ? "" : "s",
                r->stats.malformed == 1 ? "was" : "were");
    if (r->stats.cut)
        fprintf(f, "testfence: the violation log is larger than %u MiB; the rest was ignored\n",
                REPORT_MAX_LOG >> 20);
    if (r->log_unreadable)
        fprintf(f, "testfence: %s\n", r->log_error);
    fputs(run->note ? run->note : run->weak ? weak_note : unshimmed_note, f);
    if (run->status != run->command_status && run->fails_why)
        fprintf(f, "testfence: the command exited %d; exiting %d because %s\n", run->command_status,
                run->status, run->fails_why);
    else if (run->status != run->command_status && !left && !writes) /* a touched log, ... */
        fprintf(f, "testfence: the command exited %d; exiting %d because of what is said above\n",
                run->command_status, run->status);
    else if (run->status != run->command_status)
        fprintf(f,
                "testfence: the command exited %d; exiting %d because %s "
                "(--allow-violations keeps the command's status)\n",
                run->command_status, run->status,
                !left && prot == writes ? "changes to your protected test files were refused"
                : !left                 ? "writes were blocked"
                : !writes               ? "processes it started outlived it"
                          : "writes were blocked and processes it started outlived it");
    fprintf(f, "testfence: report: %s/report.json\n", run->workspace);
}

/* ---- report.json ----------------------------------------------------------- */

static void json_kv(FILE *f, const char *indent, const char *key, const char *val, bool comma)
{
    fprintf(f, "%s\"%s\": ", indent, key);
    tf_json_write(f, val);
    fputs(comma ? ",\n" : "\n", f);
}

static void json_entry(FILE *f, const struct report_entry *e, const struct report_run *run,
                       bool comma)
{
    const char *in = "        ";
    char en[32];
    fputs("      {\n", f);
    json_kv(f, in, "op", e->op, true);
    json_kv(f, in, "path", e->path, true);
    json_kv(f, in, "resolved", e->resolved, true);
    fprintf(f, "%s\"errno\": %d,\n", in, e->err);
    json_kv(f, in, "error", vlog_errname(e->err, en, sizeof en), true);
    json_kv(f, in, "blocked_by", e->blocked_by, true);
    fprintf(f, "%s\"count\": %zu,\n", in, e->count);
    json_kv(f, in, "phase", e->phase, true);
    json_kv(f, in, "first_time", e->first_time, true);
    json_kv(f, in, "exe", e->exe, true);
    if (e->src_file) {
        json_kv(f, in, "src_file", e->src_file, true);
        fprintf(f, "%s\"src_line\": %ld,\n", in, e->src_line);
        if (e->src_func)
            json_kv(f, in, "src_func", e->src_func, true);
    }
    if (e->test_file) {
        json_kv(f, in, "test_file", e->test_file, true);
        fprintf(f, "%s\"test_line\": %ld,\n", in, e->test_line);
    }
    json_kv(f, in, "hint", report_hint(e, run), false);
    fputs(comma ? "      },\n" : "      }\n", f);
}

static void json_tests(FILE *f, const struct report *r, const struct report_run *run)
{
    struct report_entry **s = report_sorted(r);
    fputs("  \"tests\": [", f);
    for (size_t i = 0; s && i < r->n;) {
        size_t end = report_group_end(s, r->n, i), writes = report_group_writes(s, i, end);
        fputs(i ? ",\n    {\n" : "\n    {\n", f);
        json_kv(f, "      ", "test", s[i]->test, true);
        fprintf(f, "      \"blocked\": %zu,\n      \"writes\": [\n", writes);
        for (size_t k = i; k < end; k++)
            json_entry(f, s[k], run, k + 1 < end);
        fputs("      ]\n    }", f);
        i = end;
    }
    fputs(r->n ? "\n  ],\n" : "],\n", f);
    free(s);
}

void report_json(FILE *f, const struct report *r, const struct report_run *run)
{
    fputs("{\n  \"schema\": \"testfence-report/1\",\n", f);
    json_kv(f, "  ", "run_id", run->run_id, true);
    json_kv(f, "  ", "root", run->root, true);
    json_kv(f, "  ", "workspace", run->workspace, true);
    json_kv(f, "  ", "backend", run->backend, true);
    json_kv(f, "  ", "metadata_layer", run->layer, true);
    json_kv(f, "  ", "metadata_layer_note", run->layer_why, true);
    fputs("  \"command\": [", f);
    for (char *const *a = run->argv; a && *a; a++) {
        fputs(a == run->argv ? "" : ", ", f);
        tf_json_write(f, *a);
    }
    fprintf(f, "],\n  \"command_status\": %d,\n  \"status\": %d,\n", run->command_status,
            run->status);
    fprintf(f, "  \"blocked\": %zu,\n  \"distinct\": %zu,\n  \"unattributed\": %zu,\n", r->total,
            r->n, r->unattributed);
    fprintf(f, "  \"not_listed\": %zu,\n  \"malformed_lines\": %zu,\n", r->dropped,
            r->stats.malformed);
    fprintf(f, "  \"log_cut\": %s,\n  \"log_unreadable\": %s,\n", r->stats.cut ? "true" : "false",
            r->log_unreadable ? "true" : "false");
    json_tests(f, r, run);
    fprintf(f, "  \"weak_backend\": %s\n}\n", run->weak ? "true" : "false");
}

struct json_ctx {
    const struct report *r;
    const struct report_run *run;
};

static void fill_json(FILE *f, const void *ctx)
{
    const struct json_ctx *c = ctx;
    report_json(f, c->r, c->run);
}

int report_write_json(const struct report *r, const struct report_run *run, int dirfd,
                      const char *name, tf_err *err)
{
    struct outpath o = {.dirfd = dirfd};
    struct json_ctx c = {r, run};
    snprintf(o.name, sizeof o.name, "%s", name);
    snprintf(o.shown, sizeof o.shown, "%s/%s", run->workspace, name);
    return outpath_write(&o, fill_json, &c, err);
}

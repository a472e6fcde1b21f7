#include "vlog.h"
#include "platform.h"

#include "base/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- text for a terminal (UTF-8 and JSON escaping are base/text's) --------- */

void vlog_printable(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && k + 1 < cap) {
        size_t n = tf_utf8_len(p, SIZE_MAX);
        bool bad = n == 0 || p[0] < 0x20 || p[0] == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0);
        if (bad || k + n >= cap) {
            out[k++] = '?';
            p += n ? n : 1;
            continue;
        }
        memcpy(out + k, p, n);
        k += n;
        p += n;
    }
    out[k] = '\0';
}

const char *vlog_errname(int err, char *out, size_t cap)
{
    const char *name = err > 0 ? strerrorname_np(err) : NULL;
    if (name)
        return name;
    snprintf(out, cap, "%d", err);
    return out;
}

/* ---- writing --------------------------------------------------------------- */

struct sbuf {
    char *p;
    size_t cap, len;
    bool cut;
};

static void put_raw(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cut = true;
        return;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* ,"key":"value" with the escaped value cut to BUDGET bytes; null for NULL. */
static void put_str(struct sbuf *b, const char *key, const char *val, size_t budget)
{
    char tmp[1200];
    put_raw(b, ",\"");
    put_raw(b, key);
    put_raw(b, "\":");
    if (!val) {
        put_raw(b, "null");
        return;
    }
    tf_json_escape(tmp, budget < sizeof tmp ? budget : sizeof tmp, val, &b->cut);
    put_raw(b, tmp);
}

static void put_int(struct sbuf *b, const char *key, long v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, ",\"%s\":%ld", key, v);
    put_raw(b, tmp);
}

/* The source fields, each only when known: a file with its line (a function only with them). */
static void put_where(struct sbuf *b, const struct vlog_record *r)
{
    if (r->src_file && r->src_file[0] && r->src_line > 0 && r->src_line <= VLOG_LINE_NO_MAX) {
        put_str(b, "src_file", r->src_file, 240);
        put_int(b, "src_line", r->src_line);
        if (r->src_func && r->src_func[0])
            put_str(b, "src_func", r->src_func, 64);
    }
    if (r->test_file && r->test_file[0] && r->test_line > 0 && r->test_line <= VLOG_LINE_NO_MAX) {
        put_str(b, "test_file", r->test_file, 200);
        put_int(b, "test_line", r->test_line);
    }
}

/* Budgets (escaped bytes) chosen so that their sum and the keys stay under VLOG_MAX, the
 * source fields at their longest included (tests/core/test_vlog.c fills every one). */
size_t vlog_format(char *out, size_t cap, const struct vlog_record *r)
{
    char en[32];
    struct sbuf b = {.p = out, .cap = cap < VLOG_MAX ? cap : VLOG_MAX};
    out[0] = '\0';
    put_raw(&b, "{\"v\":1");
    put_str(&b, "time", r->time, 40);
    put_int(&b, "pid", r->pid);
    put_str(&b, "test", r->test, 600);
    put_str(&b, "phase", r->phase, 24);
    put_str(&b, "op", r->op, 32);
    put_str(&b, "path", r->path, 900);
    put_str(&b, "resolved", r->resolved, 900);
    put_int(&b, "errno", r->err);
    put_str(&b, "error", vlog_errname(r->err, en, sizeof en), 24);
    put_str(&b, "blocked_by", r->blocked_by, 12);
    put_str(&b, "exe", r->exe, 300);
    put_str(&b, "cmdline", r->cmdline, 450);
    put_where(&b, r);
    put_raw(&b, b.cut || r->truncated ? ",\"truncated\":true}\n" : ",\"truncated\":false}\n");
    return b.len;
}

/* ---- parsing (untrusted input) --------------------------------------------- */

struct jp {
    const char *s, *end;
    char *out; /* the next free byte of the scratch buffer */
};

static void skip_ws(struct jp *j)
{
    while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\r'))
        j->s++;
}

static bool eat(struct jp *j, char c)
{
    skip_ws(j);
    if (j->s < j->end && *j->s == c) {
        j->s++;
        return true;
    }
    return false;
}

/* \uXXXX (J->s after the 'u'), with surrogate pairs; a lone surrogate becomes U+FFFD. */
static int unicode_escape(struct jp *j)
{
    unsigned long cp, lo;
    if (tf_hex_read(j->s, (size_t)(j->end - j->s), 4, &cp) < 0 || cp == 0)
        return -1;
    j->s += 4;
    if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->s >= 6 && j->s[0] == '\\' && j->s[1] == 'u' &&
        tf_hex_read(j->s + 2, (size_t)(j->end - j->s - 2), 4, &lo) == 0 && lo >= 0xdc00 &&
        lo < 0xe000) {
        j->s += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    } else if (cp >= 0xd800 && cp < 0xe000) {
        cp = 0xfffd;
    }
    j->out += tf_utf8_put(j->out, cp);
    return 0;
}

/* A JSON string, unescaped into the scratch buffer; *out points at it. */
static int parse_string(struct jp *j, const char **out)
{
    if (!eat(j, '"'))
        return -1;
    *out = j->out;
    while (j->s < j->end) {
        unsigned char c = (unsigned char)*j->s++;
        if (c == '"') {
            *j->out++ = '\0';
            return 0;
        }
        if (c < 0x20)
            return -1;
        if (c != '\\') {
            *j->out++ = (char)c;
            continue;
        }
        if (j->s >= j->end)
            return -1;
        char e = *j->s++;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k)
            *j->out++ = to[k - from];
        else if (e != 'u' || unicode_escape(j) < 0)
            return -1;
    }
    return -1;
}

enum jkind { J_STR, J_INT, J_BOOL, J_NULL };

struct jval {
    enum jkind kind;
    const char *str;
    long long num;
};

static int parse_int(struct jp *j, long long *v)
{
    bool neg = j->s < j->end && *j->s == '-';
    if (neg)
        j->s++;
    int digits = 0;
    *v = 0;
    while (j->s < j->end && *j->s >= '0' && *j->s <= '9' && digits < 18) {
        *v = *v * 10 + (*j->s++ - '0');
        digits++;
    }
    if (!digits || (j->s < j->end && strchr("0123456789.eE", *j->s)))
        return -1;
    if (neg)
        *v = -*v;
    return 0;
}

static bool word(struct jp *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->s) < n || memcmp(j->s, w, n))
        return false;
    j->s += n;
    return true;
}

static int parse_value(struct jp *j, struct jval *v)
{
    skip_ws(j);
    if (j->s >= j->end)
        return -1;
    if (*j->s == '"') {
        v->kind = J_STR;
        return parse_string(j, &v->str);
    }
    if (word(j, "null")) {
        v->kind = J_NULL;
        return 0;
    }
    if (word(j, "true") || word(j, "false")) {
        v->kind = J_BOOL;
        v->num = j->s[-1] == 'e' && j->s[-2] == 'u'; /* "true" ends in "ue", "false" in "se" */
        return 0;
    }
    v->kind = J_INT;
    return parse_int(j, &v->num);
}

enum field {
    VF_V,
    VF_TIME,
    VF_PID,
    VF_TEST,
    VF_PHASE,
    VF_OP,
    VF_PATH,
    VF_RESOLVED,
    VF_ERRNO,
    VF_ERROR,
    VF_BLOCKED,
    VF_EXE,
    VF_CMDLINE,
    VF_TRUNC,
    VF_SRC_FILE,
    VF_SRC_LINE,
    VF_SRC_FUNC,
    VF_TEST_FILE,
    VF_TEST_LINE,
    VF_COUNT
};

/* Which JSON kinds a field accepts (bit per enum jkind). */
#define K(k) (1u << (k))
/* A field that is not one of the record's strings. */
#define NOT_STR ((size_t)-1)
#define STR(member) offsetof(struct vlog_record, member)

/* Each field of a record line: its key, the kinds it accepts, and, for the string
 * fields, which member of struct vlog_record receives the value. */
static const struct field_spec {
    const char *key;
    unsigned kinds;
    size_t str;
} fields[VF_COUNT] = {
    [VF_V] = {"v", K(J_INT), NOT_STR},
    [VF_TIME] = {"time", K(J_STR), STR(time)},
    [VF_PID] = {"pid", K(J_INT), NOT_STR},
    [VF_TEST] = {"test", K(J_STR) | K(J_NULL), STR(test)},
    [VF_PHASE] = {"phase", K(J_STR) | K(J_NULL), STR(phase)},
    [VF_OP] = {"op", K(J_STR), STR(op)},
    [VF_PATH] = {"path", K(J_STR), STR(path)},
    [VF_RESOLVED] = {"resolved", K(J_STR), STR(resolved)},
    [VF_ERRNO] = {"errno", K(J_INT), NOT_STR},
    [VF_ERROR] = {"error", K(J_STR), NOT_STR}, /* the errno's name: derived, not kept */
    [VF_BLOCKED] = {"blocked_by", K(J_STR), STR(blocked_by)},
    [VF_EXE] = {"exe", K(J_STR) | K(J_NULL), STR(exe)},
    [VF_CMDLINE] = {"cmdline", K(J_STR) | K(J_NULL), STR(cmdline)},
    [VF_TRUNC] = {"truncated", K(J_BOOL), NOT_STR},
    [VF_SRC_FILE] = {"src_file", K(J_STR), STR(src_file)},
    [VF_SRC_LINE] = {"src_line", K(J_INT), NOT_STR},
    [VF_SRC_FUNC] = {"src_func", K(J_STR), STR(src_func)},
    [VF_TEST_FILE] = {"test_file", K(J_STR), STR(test_file)},
    [VF_TEST_LINE] = {"test_line", K(J_INT), NOT_STR},
};

static int field_of(const char *key)
{
    for (int i = 0; i < VF_COUNT; i++)
        if (!strcmp(key, fields[i].key))
            return i;
    return -1;
}

static void assign(struct vlog_record *r, int f, const struct jval *v)
{
    if (fields[f].str != NOT_STR)
        *(const char **)((char *)r + fields[f].str) = v->kind == J_STR ? v->str : NULL;
    else if (f == VF_PID)
        r->pid = (long)v->num;
    else if (f == VF_ERRNO)
        r->err = (int)v->num;
    else if (f == VF_TRUNC)
        r->truncated = v->num != 0;
    else if (f == VF_SRC_LINE)
        r->src_line = (long)v->num;
    else if (f == VF_TEST_LINE)
        r->test_line = (long)v->num;
}

/* The source fields come in pairs (a file and its line; a function only with them): one
 * without the other, or a line no file has, is dropped, not the record (they say nothing
 * about what was blocked). */
static void where_pairs(struct vlog_record *r)
{
    if (!r->src_file || !r->src_file[0] || r->src_line < 1 || r->src_line > VLOG_LINE_NO_MAX) {
        r->src_file = r->src_func = NULL;
        r->src_line = 0;
    }
    if (!r->test_file || !r->test_file[0] || r->test_line < 1 || r->test_line > VLOG_LINE_NO_MAX) {
        r->test_file = NULL;
        r->test_line = 0;
    }
}

static bool op_name_ok(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
    return n > 0 && n < 32 && s[n] == '\0';
}

/* The values a real record can have; anything else is forged or corrupt. */
static int validate(const struct vlog_record *r, unsigned seen, long long version)
{
    const unsigned required = 1u << VF_V | 1u << VF_PID | 1u << VF_OP | 1u << VF_RESOLVED |
                              1u << VF_ERRNO | 1u << VF_BLOCKED;
    if ((seen & required) != required || version != 1)
        return -1;
    /* testfence's own records (a process that outlived the command) carry no errno. */
    bool own = !strcmp(r->blocked_by, "testfence");
    if (r->pid < 1 || r->pid > (1L << 22) || r->err < !own || r->err > 4095)
        return -1;
    /* Its own records name a process, whose program may be unknown (it exited, its threads
     * did not); a write always names an absolute path. */
    if (!op_name_ok(r->op) || (!platform_is_absolute(r->resolved) && !own))
        return -1;
    if (strcmp(r->blocked_by, "kernel") && strcmp(r->blocked_by, "shim") &&
        strcmp(r->blocked_by, "guard") && strcmp(r->blocked_by, "protect") && !own)
        return -1;
    return 0;
}

int vlog_parse(const char *line, size_t len, struct vlog_record *r, char *scratch)
{
    struct jp j = {.s = line, .end = line + len, .out = scratch};
    unsigned seen = 0;
    long long version = 0;
    memset(r, 0, sizeof *r);
    if (!eat(&j, '{'))
        return -1;
    for (bool first = true; !eat(&j, '}'); first = false) {
        const char *key;
        struct jval v;
        if ((!first && !eat(&j, ',')) || parse_string(&j, &key) < 0 || !eat(&j, ':') ||
            parse_value(&j, &v) < 0)
            return -1;
        int f = field_of(key);
        if (f < 0)
            continue; /* a newer writer's field */
        if ((seen & 1u << f) || !(fields[f].kinds & K(v.kind)))
            return -1;
        seen |= 1u << f;
        if (f == VF_V)
            version = v.num;
        assign(r, f, &v);
    }
    skip_ws(&j);
    if (j.s != j.end)
        return -1;
    where_pairs(r);
    return validate(r, seen, version);
}

/* ---- reading the log ------------------------------------------------------- */

struct reader {
    char line[VLOG_LINE_MAX + 1];
    char scratch[VLOG_LINE_MAX + 1];
    size_t len;
    bool overflow;
};

/* One complete line: parse it, hand it on, or count it as malformed. */
static int take_line(struct reader *rd, int (*fn)(const struct vlog_record *, void *), void *ctx,
                     struct vlog_stats *st)
{
    struct vlog_record r;
    bool blank = rd->len == 0;
    bool bad = rd->overflow || (!blank && vlog_parse(rd->line, rd->len, &r, rd->scratch) < 0);
    rd->len = 0;
    rd->overflow = false;
    if (bad) {
        st->malformed++;
        return 0;
    }
    if (blank)
        return 0;
    st->records++;
    return fn(&r, ctx);
}

static int feed(struct reader *rd, const char *buf, size_t n,
                int (*fn)(const struct vlog_record *, void *), void *ctx, struct vlog_stats *st)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            if (take_line(rd, fn, ctx, st))
                return -1;
        } else if (rd->len < VLOG_LINE_MAX) {
            rd->line[rd->len++] = buf[i];
        } else {
            rd->overflow = true;
        }
    }
    return 0;
}

int vlog_read(int dirfd, const char *path, size_t max_bytes,
              int (*fn)(const struct vlog_record *r, void *ctx), void *ctx, struct vlog_stats *st,
              tf_err *err)
{
    memset(st, 0, sizeof *st);
    int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0
                               : tf_errnof(err, errno, "cannot read the violation log %s", path);
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return tf_errf(err, "the violation log %s is not a regular file", path);
    }
    struct reader *rd = calloc(1, sizeof *rd);
    char *buf = malloc(65536);
    int rc = rd && buf ? 0 : tf_errf(err, "out of memory");
    size_t total = 0;
    while (rc == 0) {
        ssize_t n = read(fd, buf, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = tf_errnof(err, errno, "cannot read the violation log %s", path);
        if (n <= 0)
            break;
        if (total + (size_t)n > max_bytes) {
            n = (ssize_t)(max_bytes - total);
            st->cut = true;
        }
        total += (size_t)n;
        if (feed(rd, buf, (size_t)n, fn, ctx, st) < 0)
            rc = tf_errf(err, "out of memory reading the violation log");
        if (st->cut)
            break;
    }
    /* A last line without its newline was cut short: parse it all the same (it fails if cut). */
    if (rc == 0 && !st->cut && rd && (rd->len || rd->overflow) && take_line(rd, fn, ctx, st))
        rc = tf_errf(err, "out of memory reading the violation log");
    free(buf);
    free(rd);
    close(fd);
    return rc;
}

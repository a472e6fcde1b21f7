#include "json.h"

#include "text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
    const char *name, *s;
    size_t len, pos;
    unsigned line;
    size_t line_start; /* offset of the current line's first byte */
    tf_err *err;
};

/* "NAME:LINE:COL: message" at offset OFF (on the current line). Returns -1. */
static int fail_at(struct jp *p, size_t off, const char *fmt, ...)
    __attribute__((format(TF_PRINTF, 3, 4)));
static int fail_at(struct jp *p, size_t off, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tf_errf(p->err, "%s:%u:%zu: %s", p->name, p->line, off - p->line_start + 1, msg);
}

/* What is at P's position, for a message: "'x'", "byte 0x01" or "the end of the file". */
static const char *found(const struct jp *p, char *buf, size_t cap)
{
    if (p->pos >= p->len)
        return "the end of the file";
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "byte 0x%02x", c);
    return buf;
}

static int expected(struct jp *p, const char *what)
{
    char b[32];
    return fail_at(p, p->pos, "expected %s, found %s", what, found(p, b, sizeof b));
}

static void skip_ws(struct jp *p)
{
    for (; p->pos < p->len; p->pos++) {
        char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
    }
}

static int at(const struct jp *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int oom(struct jp *p)
{
    return tf_errf(p->err, "%s: out of memory", p->name);
}

/* ---- strings ----------------------------------------------------------------- */

struct sbuf {
    char *v;
    size_t n, cap;
};

static int sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *v = realloc(b->v, cap);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    memcpy(b->v + b->n, s, n);
    b->n += n;
    b->v[b->n] = '\0';
    return 0;
}

/* The four hex digits of a \u escape at P's position, into *CP. */
static int hex4(struct jp *p, unsigned long *cp)
{
    if (tf_hex_read(p->s + p->pos, p->len - p->pos, 4, cp) < 0)
        return fail_at(p, p->pos, "\\u needs four hex digits");
    p->pos += 4;
    return 0;
}

/* After "\u": one code point, a surrogate pair joined; a lone surrogate is an error. */
static int unicode_escape(struct jp *p, struct sbuf *b)
{
    size_t start = p->pos - 2;
    unsigned long cp, lo;
    if (hex4(p, &cp) < 0)
        return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail_at(p, start, "a low surrogate \\u%04lX without a high one", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail_at(p, start, "a high surrogate \\u%04lX without a low one", cp);
        p->pos += 2;
        if (hex4(p, &lo) < 0)
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail_at(p, start, "a high surrogate \\u%04lX without a low one", cp);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    char u[4];
    size_t n = tf_utf8_put(u, cp);
    return sb_put(b, u, n);
}

static int escape(struct jp *p, struct sbuf *b)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = p->pos + 1 < p->len ? (unsigned char)p->s[p->pos + 1] : -1;
    const char *k = c > 0 ? strchr(from, c) : NULL;
    if (c == 'u') {
        p->pos += 2;
        return unicode_escape(p, b);
    }
    if (!k)
        return fail_at(p, p->pos, "unknown escape in a string");
    p->pos += 2;
    return sb_put(b, &to[k - from], 1);
}

/* The string at P's position (on its '"'), unescaped into *OUT (malloc'd) and *LEN. */
static int string(struct jp *p, char **out, size_t *len)
{
    struct sbuf b = {0};
    size_t start = p->pos++;
    int rc = sb_put(&b, "", 0);
    while (rc == 0) {
        int c = at(p);
        if (c == '"')
            break;
        if (c < 0)
            rc = fail_at(p, start, "a string that does not end");
        else if (c < 0x20)
            rc = fail_at(p, p->pos, "control character U+%04X must be escaped in a string", c);
        else if (c == '\\')
            rc = escape(p, &b);
        else {
            size_t n = tf_utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
            rc = n ? sb_put(&b, p->s + p->pos, n) : fail_at(p, p->pos, "invalid UTF-8");
            p->pos += n;
        }
    }
    if (rc < 0) {
        free(b.v);
        return p->err->msg[0] ? -1 : oom(p); /* sb_put's failure says nothing */
    }
    p->pos++;
    *out = b.v;
    *len = b.n;
    return 0;
}

/* ---- numbers and words -------------------------------------------------------- */

static size_t digits(const struct jp *p, size_t i)
{
    while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
        i++;
    return i;
}

static int number(struct jp *p, struct json_value *v)
{
    size_t i = p->pos + (at(p) == '-'), d = digits(p, i);
    if (d == i || (p->s[i] == '0' && d > i + 1))
        return fail_at(p, p->pos, "a number needs digits, without a leading zero");
    bool is_int = true;
    if (d < p->len && p->s[d] == '.') {
        size_t f = digits(p, d + 1);
        if (f == d + 1)
            return fail_at(p, d, "a fraction needs digits");
        d = f;
        is_int = false;
    }
    if (d < p->len && (p->s[d] == 'e' || p->s[d] == 'E')) {
        size_t e = d + 1 + (d + 1 < p->len && (p->s[d + 1] == '+' || p->s[d + 1] == '-'));
        size_t f = digits(p, e);
        if (f == e)
            return fail_at(p, d, "an exponent needs digits");
        d = f;
        is_int = false;
    }
    char text[64];
    size_t n = d - p->pos;
    snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text ? n : sizeof text - 1),
             p->s + p->pos);
    v->type = JSON_NUMBER;
    v->num = strtod(text, NULL);
    errno = 0;
    long long iv = strtoll(text, NULL, 10);
    v->is_int = is_int && n < sizeof text && errno == 0;
    v->i = v->is_int ? iv : 0;
    p->pos = d;
    return 0;
}

static bool word(struct jp *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
        return false;
    p->pos += n;
    return true;
}

/* ---- arrays and objects -------------------------------------------------------- */

static int value(struct jp *p, struct json_value *v, unsigned depth);

/* Room for one more element of SIZE bytes in *V (N used, *CAP allocated), zeroed. */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : 4;
    if (c > SIZE_MAX / size)
        return NULL;
    char *nv = realloc(v, c * size);
    if (!nv)
        return NULL;
    memset(nv + n * size, 0, (c - n) * size);
    *cap = c;
    return nv;
}

/* After an element: ',' goes on (true), CLOSE ends (false); anything else is an error. */
static int next_or_end(struct jp *p, char close, const char *what)
{
    skip_ws(p);
    if (at(p) == ',') {
        p->pos++;
        return 1;
    }
    if (at(p) == close) {
        p->pos++;
        return 0;
    }
    return expected(p, what);
}

static int array(struct jp *p, struct json_value *v, unsigned depth)
{
    size_t cap = 0;
    v->type = JSON_ARRAY;
    p->pos++;
    skip_ws(p);
    if (at(p) == ']') {
        p->pos++;
        return 0;
    }
    for (int more = 1; more == 1;) {
        struct json_value *items = grow(v->items, &cap, v->len, sizeof *items);
        if (!items)
            return oom(p);
        v->items = items;
        if (value(p, &items[v->len++], depth + 1) < 0)
            return -1;
        more = next_or_end(p, ']', "',' or ']'");
        if (more < 0)
            return -1;
    }
    return 0;
}

static int member(struct jp *p, struct json_member *m, unsigned depth)
{
    skip_ws(p);
    if (at(p) != '"')
        return expected(p, "a member name in quotes");
    if (string(p, &m->key, &m->key_len) < 0)
        return -1;
    skip_ws(p);
    if (at(p) != ':')
        return expected(p, "':'");
    p->pos++;
    return value(p, &m->value, depth + 1);
}

static int object(struct jp *p, struct json_value *v, unsigned depth)
{
    size_t cap = 0;
    v->type = JSON_OBJECT;
    p->pos++;
    skip_ws(p);
    if (at(p) == '}') {
        p->pos++;
        return 0;
    }
    for (int more = 1; more == 1;) {
        struct json_member *m = grow(v->members, &cap, v->len, sizeof *m);
        if (!m)
            return oom(p);
        v->members = m;
        if (member(p, &m[v->len++], depth) < 0)
            return -1;
        more = next_or_end(p, '}', "',' or '}'");
        if (more < 0)
            return -1;
    }
    return 0;
}

static int value(struct jp *p, struct json_value *v, unsigned depth)
{
    skip_ws(p);
    v->line = p->line;
    v->col = (unsigned)(p->pos - p->line_start + 1);
    if (depth > JSON_MAX_DEPTH)
        return fail_at(p, p->pos, "nested deeper than %d", JSON_MAX_DEPTH);
    int c = at(p);
    if (c == '{')
        return object(p, v, depth);
    if (c == '[')
        return array(p, v, depth);
    if (c == '"') {
        v->type = JSON_STRING;
        return string(p, &v->str, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return number(p, v);
    if (word(p, "true") || word(p, "false")) {
        v->type = JSON_BOOL;
        v->b = c == 't';
        return 0;
    }
    if (word(p, "null")) {
        v->type = JSON_NULL;
        return 0;
    }
    return expected(p, "a value");
}

/* ---- the tree ------------------------------------------------------------------- */

static void clear(struct json_value *v)
{
    free(v->str);
    for (size_t i = 0; v->items && i < v->len; i++)
        clear(&v->items[i]);
    for (size_t i = 0; v->members && i < v->len; i++) {
        free(v->members[i].key);
        clear(&v->members[i].value);
    }
    free(v->items);
    free(v->members);
}

void json_free(struct json_value *v)
{
    if (v)
        clear(v);
    free(v);
}

int json_parse(const char *name, const char *data, size_t len, struct json_value **out, tf_err *err)
{
    tf_err scratch;
    struct jp p = {name, data, len, 0, 1, 0, err ? err : &scratch};
    struct json_value *v = calloc(1, sizeof *v);
    p.err->msg[0] = '\0';
    if (!v)
        return tf_errf(err, "%s: out of memory", name);
    if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
        p.pos = 3; /* a byte order mark, as some editors write */
    int rc = value(&p, v, 0);
    if (rc == 0) {
        skip_ws(&p);
        if (p.pos < p.len)
            rc = expected(&p, "the end of the file after the value");
    }
    if (rc < 0) {
        json_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; obj && obj->type == JSON_OBJECT && i < obj->len; i++) {
        const struct json_member *m = &obj->members[i];
        if (m->key_len == n && !memcmp(m->key, key, n))
            return &m->value;
    }
    return NULL;
}

const char *json_text(const struct json_value *v)
{
    return v && v->type == JSON_STRING && strlen(v->str) == v->len ? v->str : NULL;
}

bool json_whole(const struct json_value *v, long long lo, long long hi, long long *out)
{
    if (!v || v->type != JSON_NUMBER || !v->is_int || v->i < lo || v->i > hi)
        return false;
    *out = v->i;
    return true;
}

#include "toml.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena: every allocation of a document, released in one go ---- */

typedef struct chunk {
    struct chunk *next;
    size_t cap, used;
    max_align_t data[];
} chunk;

typedef struct arena {
    chunk *head;
} arena;

enum { CHUNK_SIZE = 64 * 1024 };

static void *arena_alloc(arena *a, size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + 15) & ~(size_t)15;
    chunk *c = a->head;
    if (c && c->cap - c->used >= n) {
        void *mem = (char *)c->data + c->used;
        c->used += n;
        return mem;
    }
    size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;
    chunk *nc = malloc(sizeof *nc + cap);
    if (!nc)
        return NULL;
    nc->cap = cap;
    nc->used = n;
    /* A big block goes behind the head so the head's free space is not wasted. */
    if (c && n > CHUNK_SIZE / 2) {
        nc->next = c->next;
        c->next = nc;
    } else {
        nc->next = c;
        a->head = nc;
    }
    return nc->data;
}

static void arena_free(arena *a)
{
    for (chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
}

/* ---- the tree ---- */

enum table_state {
    T_IMPLICIT, /* created as the parent of a [header]; a later [header] may still define it */
    T_HEADER,   /* defined by a [header] or [[header]]: closed to dotted keys of other sections */
    T_DOTTED,   /* created by a dotted key: [headers] may only add sub-tables */
    T_INLINE,   /* an inline table: sealed */
};
enum { A_STATIC = 0, A_TABLES = 1 }; /* array state: literal array or [[array of tables]] */

typedef struct entry {
    toml_key key;
    toml_value *val;
} entry;

struct toml_value {
    toml_type type;
    unsigned char state;
    unsigned short depth;
    toml_pos pos;
    union {
        struct {
            char *s;
            size_t len;
        } str;
        int64_t i;
        double f;
        bool b;
        toml_datetime dt;
        struct {
            toml_value **items;
            size_t len, cap;
        } arr;
        struct {
            entry *ents;
            size_t len, cap;
            uint32_t *idx; /* hash index (entry number + 1), built once a table is big */
            size_t icap;
        } tab;
    } u;
};

struct toml_doc {
    arena *mem;
    toml_value *root;
    char *name;
};

/* ---- parser state ---- */

typedef struct keypart {
    char *s;
    size_t len;
    size_t off;
} keypart;

typedef struct parser {
    toml_doc *doc;
    const char *src;
    size_t len, pos;
    unsigned flags;
    tf_err *err;
    size_t *lines; /* offset where each line starts, filled by the UTF-8 check */
    size_t nlines, lines_cap;
    size_t col_line, col_off; /* column cache, keeps position lookups linear on long lines */
    unsigned col;
    char *buf; /* scratch for decoding strings and numbers */
    size_t buf_len, buf_cap;
    toml_value *cur; /* table that key/value lines go to */
    keypart keys[TOML_MAX_DEPTH];
    int nkeys;
} parser;

static int parse_value(parser *p, int depth, toml_value **out);

/* ---- positions and errors ---- */

static toml_pos pos_at(parser *p, size_t off)
{
    size_t lo = 0, hi = p->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t from = p->lines[lo];
    unsigned col = 1;
    if (p->col_line == lo && p->col_off <= off) {
        from = p->col_off;
        col = p->col;
    }
    for (size_t i = from; i < off && i < p->len; i++)
        col += ((unsigned char)p->src[i] & 0xC0) != 0x80;
    p->col_line = lo;
    p->col_off = off;
    p->col = col;
    return (toml_pos){(unsigned)(lo + 1), col};
}

static int verrat(tf_err *err, const char *name, toml_pos pos, const char *fmt, va_list ap)
{
    char msg[sizeof err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return tf_errf(err, "%s:%u:%u: %s", name, pos.line, pos.col, msg);
}

__attribute__((format(printf, 3, 4))) static int perr(parser *p, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrat(p->err, p->doc->name, pos_at(p, off), fmt, ap);
    va_end(ap);
    return -1;
}

int toml_errf(const toml_doc *doc, toml_pos pos, tf_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrat(err, doc->name, pos, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(parser *p)
{
    return perr(p, p->pos, "out of memory");
}

/* Describe the character at off for an error message: 'x', U+000D or end of file. */
static const char *show_char(parser *p, size_t off, char *buf, size_t size)
{
    if (off >= p->len)
        return "end of file";
    unsigned char c = (unsigned char)p->src[off];
    if (c == '\n' || (c == '\r' && off + 1 < p->len && p->src[off + 1] == '\n'))
        return "end of line";
    if (c > 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else if (c < 0x80)
        snprintf(buf, size, "U+%04X", c);
    else {
        size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        snprintf(buf, size, "'%.*s'", (int)n, p->src + off);
    }
    return buf;
}

static int unexpected(parser *p, const char *what)
{
    char b[16];
    return perr(p, p->pos, "expected %s, found %s", what, show_char(p, p->pos, b, sizeof b));
}

static const char *a_type(toml_type t)
{
    switch (t) {
    case TOML_ARRAY:
        return "an array";
    case TOML_INTEGER:
        return "an integer";
    case TOML_DATETIME:
        return "an offset date-time";
    case TOML_DATETIME_LOCAL:
        return "a local date-time";
    case TOML_DATE_LOCAL:
        return "a local date";
    case TOML_TIME_LOCAL:
        return "a local time";
    default:
        return t == TOML_TABLE    ? "a table"
               : t == TOML_STRING ? "a string"
               : t == TOML_FLOAT  ? "a float"
                                  : "a boolean";
    }
}

const char *toml_type_name(toml_type t)
{
    const char *s = a_type(t);
    return strchr(s, ' ') + 1;
}

/* ---- UTF-8 check, which also records where lines start ---- */

static int add_line(parser *p, size_t off)
{
    if (p->nlines == p->lines_cap) {
        size_t cap = p->lines_cap ? p->lines_cap * 2 : 256;
        size_t *n = realloc(p->lines, cap * sizeof *n);
        if (!n)
            return tf_errf(p->err, "%s: out of memory", p->doc->name);
        p->lines = n;
        p->lines_cap = cap;
    }
    p->lines[p->nlines++] = off;
    return 0;
}

/* Length of the UTF-8 sequence at s (n bytes available), or 0 if it is malformed,
 * overlong, a surrogate or beyond U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], cp, min;
    size_t k;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        k = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        k = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        k = 3, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n <= k)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if ((s[j] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[j] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k + 1;
}

static int check_utf8(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->src;
    if (add_line(p, 0) < 0)
        return -1;
    for (size_t i = 0; i < p->len;) {
        if (s[i] == '\n' && add_line(p, i + 1) < 0)
            return -1;
        size_t k = utf8_len(s + i, p->len - i);
        if (!k)
            return perr(p, i, "invalid UTF-8 byte 0x%02X", s[i]);
        i += k;
    }
    return 0;
}

/* ---- lexing helpers ---- */

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}

static int peek_at(const parser *p, size_t k)
{
    return p->pos + k < p->len ? (unsigned char)p->src[p->pos + k] : -1;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_bare(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

/* Control characters other than tab are never allowed raw (TOML 1.0, "Comment" / "String"). */
static bool is_ctrl(int c)
{
    return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static bool v11(const parser *p)
{
    return !(p->flags & TOML_STRICT_1_0);
}

static void skip_ws(parser *p)
{
    while (peek(p) == ' ' || peek(p) == '\t')
        p->pos++;
}

/* Length of the newline at the current position (LF or CRLF), 0 if none. */
static size_t newline_len(const parser *p)
{
    if (peek(p) == '\n')
        return 1;
    return peek(p) == '\r' && peek_at(p, 1) == '\n' ? 2 : 0;
}

static int skip_comment(parser *p)
{
    if (peek(p) != '#')
        return 0;
    for (p->pos++; p->pos < p->len && !newline_len(p); p->pos++) {
        if (is_ctrl(peek(p)))
            return perr(p, p->pos, "control character U+%04X is not allowed in a comment",
                        (unsigned)peek(p));
    }
    return 0;
}

/* Whitespace, comments and newlines, as allowed between array elements. */
static int skip_ws_nl(parser *p)
{
    for (;;) {
        skip_ws(p);
        if (skip_comment(p) < 0)
            return -1;
        size_t n = newline_len(p);
        if (!n)
            return 0;
        p->pos += n;
    }
}

/* After a key/value pair or a header only a comment may follow on the line. */
static int end_line(parser *p, const char *after)
{
    skip_ws(p);
    if (skip_comment(p) < 0)
        return -1;
    size_t n = newline_len(p);
    if (n || p->pos == p->len) {
        p->pos += n;
        return 0;
    }
    char b[16];
    return perr(p, p->pos, "expected end of line after %s, found %s", after,
                show_char(p, p->pos, b, sizeof b));
}

/* ---- scratch buffer ---- */

static int buf_put(parser *p, const char *s, size_t n)
{
    if (p->buf_cap - p->buf_len < n + 1) {
        size_t cap = p->buf_cap ? p->buf_cap : 256;
        while (cap - p->buf_len < n + 1)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return oom(p);
        p->buf = b;
        p->buf_cap = cap;
    }
    memcpy(p->buf + p->buf_len, s, n);
    p->buf_len += n;
    p->buf[p->buf_len] = 0;
    return 0;
}

static int buf_putc(parser *p, char c)
{
    return buf_put(p, &c, 1);
}

static char *arena_strdup(parser *p, const char *s, size_t n)
{
    char *d = arena_alloc(p->doc->mem, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* ---- strings ---- */

static int put_utf8(parser *p, unsigned long cp, size_t off)
{
    char b[4];
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return perr(p, off, "escape \\U%08lX is not a Unicode scalar value", cp);
    if (cp < 0x80)
        return buf_putc(p, (char)cp);
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F));
        return buf_put(p, b, 2);
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return buf_put(p, b, 3);
    }
    b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    b[2] = (char)(0x80 | (cp >> 6 & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F));
    return buf_put(p, b, 4);
}

static int hex_escape(parser *p, size_t ndigits, size_t off)
{
    unsigned long cp = 0;
    for (size_t i = 0; i < ndigits; i++) {
        int c = peek(p);
        int d = is_digit(c)            ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return perr(p, off, "escape \\%c needs %zu hex digits", p->src[off + 1], ndigits);
        cp = cp * 16 + (unsigned long)d;
        p->pos++;
    }
    return put_utf8(p, cp, off);
}

/* One escape sequence; p->pos is on the backslash. */
static int escape(parser *p)
{
    size_t off = p->pos;
    int c = peek_at(p, 1);
    static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
    const char *hit = c > 0 ? strchr(from, c) : NULL;
    p->pos += 2;
    if (hit)
        return buf_putc(p, to[hit - from]);
    if (c == 'u' || c == 'U')
        return hex_escape(p, c == 'u' ? 4 : 8, off);
    if (c == 'e' && v11(p))
        return buf_putc(p, 0x1b);
    if (c == 'x' && v11(p))
        return hex_escape(p, 2, off);
    char b[16];
    p->pos = off;
    return perr(p, off, "invalid escape sequence: backslash followed by %s",
                show_char(p, off + 1, b, sizeof b));
}

/* Copy a run of ordinary characters of a string; stop at the quote, a backslash
 * (basic strings), a newline or a control character. */
static int string_run(parser *p, char quote, bool basic)
{
    size_t from = p->pos;
    while (p->pos < p->len) {
        int c = peek(p);
        if (c == quote || (basic && c == '\\') || is_ctrl(c))
            break;
        p->pos++;
    }
    return buf_put(p, p->src + from, p->pos - from);
}

static int single_line_string(parser *p)
{
    char quote = p->src[p->pos];
    size_t start = p->pos++;
    for (;;) {
        if (string_run(p, quote, quote == '"') < 0)
            return -1;
        int c = peek(p);
        if (c == quote) {
            p->pos++;
            return 0;
        }
        if (c == '\\') {
            if (escape(p) < 0)
                return -1;
            continue;
        }
        if (c < 0 || newline_len(p))
            return perr(p, start, "unterminated string");
        return perr(p, p->pos, "control character U+%04X must be escaped in a string", (unsigned)c);
    }
}

/* A backslash at the end of a line in a """string""" eats all following whitespace. */
static bool line_ending_backslash(parser *p)
{
    size_t save = p->pos++;
    skip_ws(p);
    if (!newline_len(p)) {
        p->pos = save;
        return false;
    }
    while (peek(p) == ' ' || peek(p) == '\t' || newline_len(p))
        p->pos += newline_len(p) ? newline_len(p) : 1;
    return true;
}

/* Closing delimiter of a multi-line string: up to two extra quotes belong to the content. */
static int multi_close(parser *p, char quote, bool *done)
{
    size_t n = 0;
    while (peek_at(p, n) == quote)
        n++;
    if (n < 3) {
        p->pos += n;
        return buf_put(p, p->src + p->pos - n, n);
    }
    if (n > 5)
        return perr(p, p->pos + 5, "too many quotes at the end of a multi-line string");
    *done = true;
    if (buf_put(p, p->src + p->pos, n - 3) < 0)
        return -1;
    p->pos += n;
    return 0;
}

static int multi_line_string(parser *p)
{
    char quote = p->src[p->pos];
    size_t start = p->pos;
    p->pos += 3;
    p->pos += newline_len(p); /* a newline right after the opening quotes is trimmed */
    for (bool done = false; !done;) {
        if (string_run(p, quote, quote == '"') < 0)
            return -1;
        int c = peek(p);
        size_t nl = newline_len(p);
        if (c == quote) {
            if (multi_close(p, quote, &done) < 0)
                return -1;
        } else if (c == '\\') {
            if (!line_ending_backslash(p) && escape(p) < 0)
                return -1;
        } else if (nl) {
            p->pos += nl; /* CRLF is read as LF, as Python's tomllib does */
            if (buf_putc(p, '\n') < 0)
                return -1;
        } else if (c < 0) {
            return perr(p, start, "unterminated multi-line string");
        } else {
            return perr(p, p->pos, "control character U+%04X must be escaped in a string",
                        (unsigned)c);
        }
    }
    return 0;
}

static bool at_multi_quote(const parser *p)
{
    int q = peek(p);
    return peek_at(p, 1) == q && peek_at(p, 2) == q;
}

/* Decode the string at p->pos into the scratch buffer. */
static int scan_string(parser *p, bool allow_multi)
{
    p->buf_len = 0;
    if (buf_put(p, "", 0) < 0)
        return -1;
    if (!at_multi_quote(p))
        return single_line_string(p);
    if (!allow_multi)
        return perr(p, p->pos, "a multi-line string cannot be a key");
    return multi_line_string(p);
}

/* ---- tables ---- */

static toml_value *new_value(parser *p, toml_type type, size_t off, int depth)
{
    if (depth > TOML_MAX_DEPTH) {
        perr(p, off, "nesting is deeper than %d levels", TOML_MAX_DEPTH);
        return NULL;
    }
    toml_value *v = arena_alloc(p->doc->mem, sizeof *v);
    if (!v) {
        oom(p);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    v->depth = (unsigned short)depth;
    v->pos = pos_at(p, off);
    return v;
}

static uint32_t hash_key(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static entry *table_find(const toml_value *t, const char *s, size_t n)
{
    const struct entry *ents = t->u.tab.ents;
    if (!t->u.tab.idx) {
        for (size_t i = 0; i < t->u.tab.len; i++)
            if (ents[i].key.len == n && memcmp(ents[i].key.str, s, n) == 0)
                return t->u.tab.ents + i;
        return NULL;
    }
    size_t mask = t->u.tab.icap - 1;
    for (size_t h = hash_key(s, n) & mask;; h = (h + 1) & mask) {
        uint32_t k = t->u.tab.idx[h];
        if (!k)
            return NULL;
        if (ents[k - 1].key.len == n && memcmp(ents[k - 1].key.str, s, n) == 0)
            return t->u.tab.ents + k - 1;
    }
}

static void index_put(toml_value *t, size_t i)
{
    size_t mask = t->u.tab.icap - 1;
    size_t h = hash_key(t->u.tab.ents[i].key.str, t->u.tab.ents[i].key.len) & mask;
    while (t->u.tab.idx[h])
        h = (h + 1) & mask;
    t->u.tab.idx[h] = (uint32_t)(i + 1);
}

/* Small tables are scanned; big ones get a hash index so huge files stay linear. */
static int reindex(parser *p, toml_value *t)
{
    size_t n = t->u.tab.len;
    if (n < 8 || (t->u.tab.idx && n * 2 <= t->u.tab.icap))
        return 0;
    if (n >= UINT32_MAX / 4)
        return perr(p, p->pos, "too many keys in one table");
    size_t cap = 32;
    while (cap < n * 4)
        cap *= 2;
    uint32_t *idx = arena_alloc(p->doc->mem, cap * sizeof *idx);
    if (!idx)
        return oom(p);
    memset(idx, 0, cap * sizeof *idx);
    t->u.tab.idx = idx;
    t->u.tab.icap = cap;
    for (size_t i = 0; i < n; i++)
        index_put(t, i);
    return 0;
}

/* Grow an arena array of elem-sized items to hold one more. */
static int grow(parser *p, void **items, size_t len, size_t *cap, size_t elem)
{
    if (len < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 4;
    void *n = arena_alloc(p->doc->mem, ncap * elem);
    if (!n)
        return oom(p);
    if (len)
        memcpy(n, *items, len * elem);
    *items = n;
    *cap = ncap;
    return 0;
}

static int table_add(parser *p, toml_value *t, const keypart *k, toml_value *v)
{
    if (grow(p, (void **)&t->u.tab.ents, t->u.tab.len, &t->u.tab.cap, sizeof(entry)) < 0)
        return -1;
    entry *e = &t->u.tab.ents[t->u.tab.len++];
    e->key = (toml_key){k->s, k->len, pos_at(p, k->off)};
    e->val = v;
    if (t->u.tab.idx && t->u.tab.len * 2 <= t->u.tab.icap) {
        index_put(t, t->u.tab.len - 1);
        return 0;
    }
    return reindex(p, t);
}

static int array_add(parser *p, toml_value *a, toml_value *v)
{
    if (grow(p, (void **)&a->u.arr.items, a->u.arr.len, &a->u.arr.cap, sizeof(toml_value *)) < 0)
        return -1;
    a->u.arr.items[a->u.arr.len++] = v;
    return 0;
}

/* ---- keys ---- */

/* The first n parts of the current key, quoted where needed, for error messages. */
static const char *key_path(const parser *p, int n, char *out, size_t size)
{
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < n && o + 8 < size; i++) {
        const keypart *k = &p->keys[i];
        bool bare = k->len > 0;
        for (size_t j = 0; j < k->len; j++)
            bare = bare && is_bare((unsigned char)k->s[j]);
        if (i)
            out[o++] = '.';
        if (!bare)
            out[o++] = '"';
        for (size_t j = 0; j < k->len && o + 8 < size; j++) {
            unsigned char c = (unsigned char)k->s[j];
            if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
                o += (size_t)snprintf(out + o, size - o, "\\u%04X", c);
            else
                out[o++] = (char)c;
        }
        if (!bare)
            out[o++] = '"';
        out[o] = 0;
    }
    return out;
}

static int key_part(parser *p, keypart *k)
{
    int c = peek(p);
    k->off = p->pos;
    if (c == '"' || c == '\'') {
        if (scan_string(p, false) < 0)
            return -1;
        k->s = arena_strdup(p, p->buf, p->buf_len);
        k->len = p->buf_len;
    } else {
        while (is_bare(peek(p)))
            p->pos++;
        if (p->pos == k->off)
            return unexpected(p, "a key");
        k->len = p->pos - k->off;
        k->s = arena_strdup(p, p->src + k->off, k->len);
    }
    return k->s ? 0 : oom(p);
}

/* A dotted key into p->keys. */
static int parse_key(parser *p)
{
    for (p->nkeys = 0;;) {
        if (p->nkeys == TOML_MAX_DEPTH)
            return perr(p, p->pos, "nesting is deeper than %d levels", TOML_MAX_DEPTH);
        if (key_part(p, &p->keys[p->nkeys++]) < 0)
            return -1;
        skip_ws(p);
        if (peek(p) != '.')
            return 0;
        p->pos++;
        skip_ws(p);
    }
}

static toml_value *new_table(parser *p, int state, size_t off, int depth)
{
    toml_value *t = new_value(p, TOML_TABLE, off, depth);
    if (t)
        t->state = (unsigned char)state;
    return t;
}

/* Child table for key part i of the current key, created in the given state if missing. */
static int child_table(parser *p, toml_value **t, int i, int state, entry **found)
{
    keypart *k = &p->keys[i];
    *found = table_find(*t, k->s, k->len);
    if (*found)
        return 0;
    toml_value *c = new_table(p, state, k->off, (*t)->depth + 1);
    if (!c || table_add(p, *t, k, c) < 0)
        return -1;
    *t = c;
    return 0;
}

static int not_a_table(parser *p, int i, const entry *e)
{
    char path[256];
    return perr(p, p->keys[i].off, "key \"%s\" is already %s (defined at %u:%u), not a table",
                key_path(p, i + 1, path, sizeof path), a_type(e->val->type), e->key.pos.line,
                e->key.pos.col);
}

static int sealed(parser *p, int i, const toml_value *v)
{
    char path[256];
    return perr(p, p->keys[i].off, "cannot add to inline table \"%s\" (defined at %u:%u)",
                key_path(p, i + 1, path, sizeof path), v->pos.line, v->pos.col);
}

/* Walk part i of a [header] key: tables are entered, arrays of tables at their last element. */
static int header_step(parser *p, toml_value **t, int i)
{
    entry *e;
    int r = child_table(p, t, i, T_IMPLICIT, &e);
    if (r < 0 || !e)
        return r;
    toml_value *v = e->val;
    if (v->type == TOML_TABLE && v->state == T_INLINE)
        return sealed(p, i, v);
    if (v->type == TOML_ARRAY && v->state == A_TABLES) {
        *t = v->u.arr.items[v->u.arr.len - 1];
        return 0;
    }
    if (v->type != TOML_TABLE)
        return not_a_table(p, i, e);
    *t = v;
    return 0;
}

/* Walk part i of a dotted key: only tables made by dotted keys (or not yet made at all). */
static int dotted_step(parser *p, toml_value **t, int i)
{
    entry *e;
    int r = child_table(p, t, i, T_DOTTED, &e);
    if (r < 0 || !e)
        return r;
    toml_value *v = e->val;
    if (v->type != TOML_TABLE)
        return not_a_table(p, i, e);
    if (v->state == T_INLINE)
        return sealed(p, i, v);
    if (v->state == T_HEADER) {
        char path[256];
        return perr(p, p->keys[i].off,
                    "cannot add to table \"%s\" with a dotted key: it was defined by a "
                    "[table] header at %u:%u",
                    key_path(p, i + 1, path, sizeof path), v->pos.line, v->pos.col);
    }
    v->state = T_DOTTED;
    *t = v;
    return 0;
}

/* ---- key/value pairs ---- */

static int keyval(parser *p, toml_value *t)
{
    if (parse_key(p) < 0)
        return -1;
    skip_ws(p);
    if (peek(p) != '=')
        return unexpected(p, "'=' after a key");
    p->pos++;
    skip_ws(p);
    for (int i = 0; i < p->nkeys - 1; i++)
        if (dotted_step(p, &t, i) < 0)
            return -1;
    keypart last = p->keys[p->nkeys - 1];
    entry *e = table_find(t, last.s, last.len);
    if (e) {
        char path[256];
        return perr(p, last.off, "duplicate key \"%s\" (first defined at %u:%u)",
                    key_path(p, p->nkeys, path, sizeof path), e->key.pos.line, e->key.pos.col);
    }
    toml_value *v;
    if (parse_value(p, t->depth + 1, &v) < 0)
        return -1;
    return table_add(p, t, &last, v);
}

/* ---- [headers] ---- */

static int define_table(parser *p, toml_value **t, size_t off)
{
    keypart *k = &p->keys[p->nkeys - 1];
    entry *e = table_find(*t, k->s, k->len);
    if (!e) {
        toml_value *c = new_table(p, T_HEADER, off, (*t)->depth + 1);
        if (!c || table_add(p, *t, k, c) < 0)
            return -1;
        *t = c;
        return 0;
    }
    toml_value *v = e->val;
    if (v->type != TOML_TABLE)
        return not_a_table(p, p->nkeys - 1, e);
    if (v->state != T_IMPLICIT) {
        char path[256];
        return perr(p, off, "duplicate table \"%s\" (first defined at %u:%u)",
                    key_path(p, p->nkeys, path, sizeof path), v->pos.line, v->pos.col);
    }
    v->state = T_HEADER;
    v->pos = pos_at(p, off);
    *t = v;
    return 0;
}

static int append_table(parser *p, toml_value **t, size_t off)
{
    keypart *k = &p->keys[p->nkeys - 1];
    entry *e = table_find(*t, k->s, k->len);
    toml_value *a = e ? e->val : NULL;
    if (!a) {
        a = new_value(p, TOML_ARRAY, off, (*t)->depth + 1);
        if (!a)
            return -1;
        a->state = A_TABLES;
        if (table_add(p, *t, k, a) < 0)
            return -1;
    } else if (a->type != TOML_ARRAY || a->state != A_TABLES) {
        char path[256];
        return perr(p, off,
                    "cannot define \"%s\" as an array of tables: it is already %s "
                    "(defined at %u:%u)",
                    key_path(p, p->nkeys, path, sizeof path),
                    a->type == TOML_ARRAY ? "a static array" : a_type(a->type), e->key.pos.line,
                    e->key.pos.col);
    }
    toml_value *c = new_table(p, T_HEADER, off, a->depth + 1);
    if (!c || array_add(p, a, c) < 0)
        return -1;
    *t = c;
    return 0;
}

static int header(parser *p)
{
    size_t off = p->pos;
    bool aot = peek_at(p, 1) == '[';
    p->pos += aot ? 2 : 1;
    skip_ws(p);
    if (parse_key(p) < 0)
        return -1;
    if (peek(p) != ']' || (aot && peek_at(p, 1) != ']'))
        return unexpected(p, aot ? "']]' to close the header" : "']' to close the header");
    p->pos += aot ? 2 : 1;
    toml_value *t = p->doc->root;
    for (int i = 0; i < p->nkeys - 1; i++)
        if (header_step(p, &t, i) < 0)
            return -1;
    if ((aot ? append_table : define_table)(p, &t, off) < 0)
        return -1;
    p->cur = t;
    return end_line(p, "the table header");
}

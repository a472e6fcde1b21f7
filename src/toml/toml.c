#include "toml.h"

#include "base/text.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
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
    toml_pos pos; /* taken when the key is read: positions must be asked for in order */
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

__attribute__((format(TF_PRINTF, 4, 0))) static int
verrat(tf_err *err, const char *name, toml_pos pos, const char *fmt, va_list ap)
{
    char msg[sizeof err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return tf_errf(err, "%s:%u:%u: %s", name, pos.line, pos.col, msg);
}

__attribute__((format(TF_PRINTF, 3, 4))) static int perr(parser *p, size_t off, const char *fmt,
                                                         ...)
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

static int check_utf8(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->src;
    if (add_line(p, 0) < 0)
        return -1;
    for (size_t i = 0; i < p->len;) {
        if (s[i] == '\n' && add_line(p, i + 1) < 0)
            return -1;
        size_t k = tf_utf8_len(s + i, p->len - i);
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
    return buf_put(p, b, tf_utf8_put(b, cp));
}

static int hex_escape(parser *p, size_t ndigits, size_t off)
{
    unsigned long cp = 0;
    for (size_t i = 0; i < ndigits; i++) {
        int d = tf_hex_digit(peek(p));
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
    e->key = (toml_key){k->s, k->len, k->pos};
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
    k->pos = pos_at(p, p->pos);
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

/* ---- numbers ---- */

static bool is_base_digit(int c, int base)
{
    if (base == 16)
        return tf_hex_digit(c) >= 0;
    return c >= '0' && c < '0' + base;
}

/* Digits of a base, with single underscores only between two digits. */
static int digits(parser *p, int base, const char *what)
{
    size_t n = 0;
    for (;;) {
        int c = peek(p);
        if (is_base_digit(c, base))
            n++;
        else if (!(c == '_' && n && is_base_digit(peek_at(p, 1), base)))
            break;
        p->pos++;
    }
    if (peek(p) == '_')
        return perr(p, p->pos, "an underscore in a number must be between two digits");
    return n ? 0 : unexpected(p, what);
}

/* The number text from..p->pos without underscores, in the scratch buffer. */
static int number_text(parser *p, size_t from)
{
    p->buf_len = 0;
    if (buf_put(p, "", 0) < 0)
        return -1;
    for (size_t i = from; i < p->pos; i++)
        if (p->src[i] != '_' && buf_putc(p, p->src[i]) < 0)
            return -1;
    return 0;
}

static int to_int(parser *p, toml_value *v, size_t start, int base, bool neg)
{
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, acc = 0;
    for (const char *s = p->buf; *s; s++) {
        unsigned d = is_digit(*s) ? (unsigned)(*s - '0') : (unsigned)((*s | 0x20) - 'a' + 10);
        if (acc > (limit - d) / (unsigned)base)
            return perr(p, start, "integer does not fit in 64 bits");
        acc = acc * (unsigned)base + d;
    }
    v->type = TOML_INTEGER;
    v->u.i = !neg ? (int64_t)acc : acc > INT64_MAX ? INT64_MIN : -(int64_t)acc;
    return 0;
}

/* strtod follows the locale, TOML does not: swap in the locale's decimal point. */
static int to_float(parser *p, toml_value *v)
{
    const char *dp = localeconv()->decimal_point;
    char *dot = strchr(p->buf, '.');
    if (dot && strcmp(dp, ".") != 0) {
        char *tail = strdup(dot + 1);
        if (!tail)
            return oom(p);
        p->buf_len = (size_t)(dot - p->buf);
        int r = buf_put(p, dp, strlen(dp)) < 0 || buf_put(p, tail, strlen(tail)) < 0;
        free(tail);
        if (r)
            return -1;
    }
    v->type = TOML_FLOAT;
    v->u.f = strtod(p->buf, NULL);
    return 0;
}

static bool at_word(const parser *p, const char *w)
{
    size_t n = strlen(w);
    return p->len - p->pos >= n && memcmp(p->src + p->pos, w, n) == 0;
}

static int prefixed_int(parser *p, toml_value *v, size_t start)
{
    int c = peek_at(p, 1);
    int base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
    p->pos += 2;
    size_t from = p->pos;
    if (digits(p, base, "a digit after the base prefix") < 0 || number_text(p, from) < 0)
        return -1;
    return to_int(p, v, start, base, false);
}

static int number(parser *p, toml_value *v)
{
    size_t start = p->pos;
    bool neg = peek(p) == '-';
    if (peek(p) == '+' || peek(p) == '-')
        p->pos++;
    if (at_word(p, "inf") || at_word(p, "nan")) {
        v->type = TOML_FLOAT;
        v->u.f = peek(p) == 'i' ? (neg ? -HUGE_VAL : HUGE_VAL) : (neg ? -(double)NAN : NAN);
        p->pos += 3;
        return 0;
    }
    if (p->pos == start && peek(p) == '0' && peek_at(p, 1) > 0 && strchr("xob", peek_at(p, 1)))
        return prefixed_int(p, v, start);
    size_t int_start = p->pos;
    if (digits(p, 10, "a value") < 0)
        return -1;
    if (p->src[int_start] == '0' && p->pos - int_start > 1)
        return perr(p, int_start, "leading zeros are not allowed in a number");
    bool is_float = false;
    if (peek(p) == '.') {
        p->pos++;
        if (digits(p, 10, "a digit after the decimal point") < 0)
            return -1;
        is_float = true;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos += 1 + (peek_at(p, 1) == '+' || peek_at(p, 1) == '-');
        if (digits(p, 10, "a digit in the exponent") < 0)
            return -1;
        is_float = true;
    }
    if (number_text(p, is_float ? start : int_start) < 0)
        return -1;
    return is_float ? to_float(p, v) : to_int(p, v, start, 10, neg);
}

/* ---- dates and times ---- */

static int fixed_digits(parser *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit(peek(p)))
            return unexpected(p, "a digit");
        v = v * 10 + peek(p) - '0';
        p->pos++;
    }
    *out = v;
    return 0;
}

static int expect_char(parser *p, char c)
{
    char what[8];
    if (peek(p) == c) {
        p->pos++;
        return 0;
    }
    snprintf(what, sizeof what, "'%c'", c);
    return unexpected(p, what);
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

static int date_part(parser *p, toml_datetime *dt, size_t start)
{
    if (fixed_digits(p, 4, &dt->year) < 0 || expect_char(p, '-') < 0 ||
        fixed_digits(p, 2, &dt->month) < 0 || expect_char(p, '-') < 0 ||
        fixed_digits(p, 2, &dt->day) < 0)
        return -1;
    if (dt->month < 1 || dt->month > 12 || dt->day < 1 ||
        dt->day > days_in_month(dt->year, dt->month))
        return perr(p, start, "invalid date %04d-%02d-%02d", dt->year, dt->month, dt->day);
    return 0;
}

/* Fractional seconds: any number of digits, kept to nanoseconds. */
static int fraction(parser *p, toml_datetime *dt)
{
    p->pos++;
    if (!is_digit(peek(p)))
        return unexpected(p, "a digit after the decimal point");
    int scale = 100000000;
    for (; is_digit(peek(p)); p->pos++, scale /= 10)
        dt->nanosecond += (peek(p) - '0') * scale;
    return 0;
}

static int time_part(parser *p, toml_datetime *dt, size_t start)
{
    if (fixed_digits(p, 2, &dt->hour) < 0 || expect_char(p, ':') < 0 ||
        fixed_digits(p, 2, &dt->minute) < 0)
        return -1;
    if (peek(p) == ':' || !v11(p)) { /* seconds are optional from TOML 1.1 */
        if (expect_char(p, ':') < 0 || fixed_digits(p, 2, &dt->second) < 0)
            return -1;
        if (peek(p) == '.' && fraction(p, dt) < 0)
            return -1;
    }
    if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
        return perr(p, start, "invalid time %02d:%02d:%02d", dt->hour, dt->minute, dt->second);
    return 0;
}

/* Returns 1 if an offset (Z or +hh:mm) follows, 0 if the date-time is local. */
static int offset_part(parser *p, toml_datetime *dt)
{
    int c = peek(p), h = 0, m = 0;
    if (c == 'Z' || c == 'z') {
        p->pos++;
        return 1;
    }
    if (c != '+' && c != '-')
        return 0;
    size_t start = p->pos++;
    if (fixed_digits(p, 2, &h) < 0 || expect_char(p, ':') < 0 || fixed_digits(p, 2, &m) < 0)
        return -1;
    if (h > 23 || m > 59)
        return perr(p, start, "invalid time offset %c%02d:%02d", c, h, m);
    dt->offset_minutes = (c == '-' ? -1 : 1) * (h * 60 + m);
    return 1;
}

static int datetime(parser *p, toml_value *v, bool has_date)
{
    size_t start = p->pos;
    toml_datetime *dt = &v->u.dt;
    v->type = has_date ? TOML_DATE_LOCAL : TOML_TIME_LOCAL;
    if (!has_date)
        return time_part(p, dt, start);
    if (date_part(p, dt, start) < 0)
        return -1;
    int c = peek(p);
    if (!(c == 'T' || c == 't' || (c == ' ' && is_digit(peek_at(p, 1)))))
        return 0;
    p->pos++;
    if (time_part(p, dt, start) < 0)
        return -1;
    int r = offset_part(p, dt);
    v->type = r > 0 ? TOML_DATETIME : TOML_DATETIME_LOCAL;
    return r < 0 ? -1 : 0;
}

static bool all_digits(const parser *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit(peek_at(p, i)))
            return false;
    return true;
}

/* ---- values ---- */

static int string_value(parser *p, toml_value *v)
{
    if (scan_string(p, true) < 0)
        return -1;
    v->type = TOML_STRING;
    v->u.str.s = arena_strdup(p, p->buf, p->buf_len);
    v->u.str.len = p->buf_len;
    return v->u.str.s ? 0 : oom(p);
}

/* A bare word where a value belongs is usually a string that lost its quotes. */
static int bad_word(parser *p)
{
    size_t n = 0;
    while (is_bare(peek_at(p, n)) && n < 40)
        n++;
    if (n < 2)
        return unexpected(p, "a value");
    return perr(p, p->pos, "expected a value, found '%.*s' (strings need quotes)", (int)n,
                p->src + p->pos);
}

static int boolean(parser *p, toml_value *v)
{
    v->type = TOML_BOOL;
    v->u.b = at_word(p, "true");
    if (!v->u.b && !at_word(p, "false"))
        return bad_word(p);
    p->pos += v->u.b ? 4 : 5;
    return 0;
}

static int array(parser *p, toml_value *a)
{
    a->type = TOML_ARRAY;
    for (p->pos++;;) {
        if (skip_ws_nl(p) < 0)
            return -1;
        if (peek(p) == ']')
            break;
        toml_value *v;
        if (parse_value(p, a->depth + 1, &v) < 0 || array_add(p, a, v) < 0 || skip_ws_nl(p) < 0)
            return -1;
        if (peek(p) == ']')
            break;
        if (peek(p) != ',')
            return unexpected(p, "',' or ']' in an array");
        p->pos++;
    }
    p->pos++;
    return 0;
}

/* Between the items of an inline table: TOML 1.1 allows newlines and comments there. */
static int inline_gap(parser *p)
{
    if (v11(p))
        return skip_ws_nl(p);
    skip_ws(p);
    if (newline_len(p) || peek(p) == '#')
        return perr(p, p->pos,
                    "inline table not closed on its line (newlines and comments "
                    "inside inline tables need TOML 1.1)");
    return 0;
}

static int inline_table(parser *p, toml_value *t)
{
    bool comma = false;
    t->type = TOML_TABLE;
    for (p->pos++;;) {
        if (inline_gap(p) < 0)
            return -1;
        if (peek(p) == '}') {
            if (comma && !v11(p))
                return perr(p, p->pos - 1, "a trailing comma in an inline table needs TOML 1.1");
            break;
        }
        if (keyval(p, t) < 0 || inline_gap(p) < 0)
            return -1;
        if (peek(p) == '}')
            break;
        if (peek(p) != ',')
            return unexpected(p, "',' or '}' in an inline table");
        comma = true;
        p->pos++;
    }
    p->pos++;
    t->state = T_INLINE;
    return 0;
}

static int parse_value(parser *p, int depth, toml_value **out)
{
    int c = peek(p);
    toml_value *v = new_value(p, TOML_STRING, p->pos, depth);
    if (!v)
        return -1;
    *out = v;
    if (c == '"' || c == '\'')
        return string_value(p, v);
    if (c == '[')
        return array(p, v);
    if (c == '{')
        return inline_table(p, v);
    if (c == 't' || c == 'f')
        return boolean(p, v);
    if (all_digits(p, 4) && peek_at(p, 4) == '-')
        return datetime(p, v, true);
    if (all_digits(p, 2) && peek_at(p, 2) == ':')
        return datetime(p, v, false);
    if (is_digit(c) || c == '+' || c == '-' ||
        ((c == 'i' || c == 'n') && (at_word(p, "inf") || at_word(p, "nan"))))
        return number(p, v);
    return bad_word(p);
}

/* ---- documents ---- */

static int document(parser *p)
{
    if (at_word(p, "\xEF\xBB\xBF")) /* a UTF-8 byte order mark is harmless */
        p->pos = 3;
    p->cur = p->doc->root;
    while (p->pos < p->len) {
        skip_ws(p);
        int c = peek(p);
        if (c == '[') {
            if (header(p) < 0)
                return -1;
        } else if (c == '#' || c < 0 || newline_len(p)) {
            if (end_line(p, "a comment") < 0)
                return -1;
        } else if (keyval(p, p->cur) < 0 || end_line(p, "a value") < 0) {
            return -1;
        }
    }
    return 0;
}

static toml_doc *new_doc(const char *name)
{
    toml_doc *doc = calloc(1, sizeof *doc);
    if (!doc)
        return NULL;
    doc->mem = calloc(1, sizeof *doc->mem);
    doc->name = strdup(name ? name : "<input>");
    if (!doc->mem || !doc->name) {
        toml_free(doc);
        return NULL;
    }
    return doc;
}

int toml_parse(const char *name, const char *data, size_t len, unsigned flags, toml_doc **out,
               tf_err *err)
{
    *out = NULL;
    toml_doc *doc = new_doc(name);
    if (!doc)
        return tf_errf(err, "%s: out of memory", name ? name : "<input>");
    parser p = {.doc = doc, .src = data, .len = len, .flags = flags, .err = err};
    p.col_line = SIZE_MAX;
    int r = check_utf8(&p);
    if (r == 0) {
        doc->root = new_table(&p, T_HEADER, 0, 0);
        r = doc->root ? document(&p) : -1;
    }
    free(p.lines);
    free(p.buf);
    if (r < 0) {
        toml_free(doc);
        return -1;
    }
    *out = doc;
    return 0;
}

static int read_all(FILE *f, char **data, size_t *len)
{
    size_t cap = 0;
    *data = NULL;
    *len = 0;
    for (;;) {
        if (cap - *len < 4096) {
            cap = cap ? cap * 2 : 65536;
            char *d = realloc(*data, cap);
            if (!d)
                return ENOMEM;
            *data = d;
        }
        size_t n = fread(*data + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            return ferror(f) ? EIO : 0;
    }
}

int toml_parse_file(const char *path, unsigned flags, toml_doc **out, tf_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tf_errnof(err, errno, "%s", path);
    char *data;
    size_t len;
    int e = read_all(f, &data, &len);
    fclose(f);
    int r = e ? tf_errnof(err, e, "%s", path) : toml_parse(path, data, len, flags, out, err);
    free(data);
    return r;
}

void toml_free(toml_doc *doc)
{
    if (!doc)
        return;
    if (doc->mem)
        arena_free(doc->mem);
    free(doc->mem);
    free(doc->name);
    free(doc);
}

/* ---- reading the tree ---- */

const toml_value *toml_root(const toml_doc *doc)
{
    return doc->root;
}

const char *toml_doc_name(const toml_doc *doc)
{
    return doc->name;
}

toml_type toml_type_of(const toml_value *v)
{
    return v->type;
}

toml_pos toml_pos_of(const toml_value *v)
{
    return v->pos;
}

const toml_value *toml_get_key(const toml_value *table, const char *key, size_t len)
{
    if (!table || table->type != TOML_TABLE)
        return NULL;
    const entry *e = table_find(table, key, len);
    return e ? e->val : NULL;
}

/* Follow a dotted path; *bad is set to a part that exists but is not a table, and
 * *bad_len to the length of the path up to it. */
static const toml_value *lookup(const toml_value *t, const char *path, const toml_value **bad,
                                size_t *bad_len)
{
    for (const char *s = path;;) {
        const char *seg = s, *end;
        if (*s == '"') {
            seg = s + 1;
            end = strchr(seg, '"');
            if (!end)
                return NULL;
        } else {
            end = s + strcspn(s, ".");
        }
        const toml_value *v = toml_get_key(t, seg, (size_t)(end - seg));
        end += *end == '"';
        if (!v || *end != '.')
            return v && !*end ? v : NULL;
        if (v->type != TOML_TABLE) {
            *bad = v;
            *bad_len = (size_t)(end - path);
            return NULL;
        }
        t = v;
        s = end + 1;
    }
}

const toml_value *toml_get(const toml_value *table, const char *path)
{
    const toml_value *bad;
    size_t bad_len;
    return lookup(table, path, &bad, &bad_len);
}

size_t toml_table_len(const toml_value *table)
{
    return table && table->type == TOML_TABLE ? table->u.tab.len : 0;
}

const toml_key *toml_table_key(const toml_value *table, size_t i)
{
    return i < toml_table_len(table) ? &table->u.tab.ents[i].key : NULL;
}

const toml_value *toml_table_value(const toml_value *table, size_t i)
{
    return i < toml_table_len(table) ? table->u.tab.ents[i].val : NULL;
}

size_t toml_array_len(const toml_value *array)
{
    return array && array->type == TOML_ARRAY ? array->u.arr.len : 0;
}

const toml_value *toml_array_at(const toml_value *array, size_t i)
{
    return i < toml_array_len(array) ? array->u.arr.items[i] : NULL;
}

const char *toml_string(const toml_value *v, size_t *len)
{
    if (!v || v->type != TOML_STRING)
        return NULL;
    if (len)
        *len = v->u.str.len;
    return v->u.str.s;
}

int64_t toml_int(const toml_value *v)
{
    return v && v->type == TOML_INTEGER ? v->u.i : 0;
}

double toml_float(const toml_value *v)
{
    return v && v->type == TOML_FLOAT ? v->u.f : 0.0;
}

bool toml_bool(const toml_value *v)
{
    return v && v->type == TOML_BOOL && v->u.b;
}

const toml_datetime *toml_datetime_of(const toml_value *v)
{
    return v && v->type >= TOML_DATETIME ? &v->u.dt : NULL;
}

/* ---- typed getters ---- */

/* Shared by the getters: the value at path if it has type want, else NULL with *rc set
 * to 0 (absent) or -1 (wrong type, err filled). */
static const toml_value *get_typed(const toml_doc *doc, const toml_value *table, const char *path,
                                   toml_type want, tf_err *err, int *rc)
{
    const toml_value *bad = NULL;
    size_t bad_len = 0;
    const toml_value *v = lookup(table, path, &bad, &bad_len);
    *rc = 0;
    if (bad)
        *rc = toml_errf(doc, bad->pos, err, "\"%.*s\" must be a table, not %s", (int)bad_len, path,
                        a_type(bad->type));
    else if (v && v->type != want)
        *rc = toml_errf(doc, v->pos, err, "\"%s\" must be %s, not %s", path, a_type(want),
                        a_type(v->type));
    else if (v)
        *rc = 1;
    return *rc == 1 ? v : NULL;
}

static bool has_nul(const toml_value *v)
{
    return strlen(v->u.str.s) != v->u.str.len;
}

int toml_get_string(const toml_doc *doc, const toml_value *table, const char *path,
                    const char **out, tf_err *err)
{
    int rc;
    const toml_value *v = get_typed(doc, table, path, TOML_STRING, err, &rc);
    if (!v)
        return rc;
    if (has_nul(v))
        return toml_errf(doc, v->pos, err, "\"%s\" must not contain a NUL character", path);
    *out = v->u.str.s;
    return 1;
}

int toml_get_bool(const toml_doc *doc, const toml_value *table, const char *path, bool *out,
                  tf_err *err)
{
    int rc;
    const toml_value *v = get_typed(doc, table, path, TOML_BOOL, err, &rc);
    if (v)
        *out = v->u.b;
    return rc;
}

int toml_get_int(const toml_doc *doc, const toml_value *table, const char *path, int64_t *out,
                 tf_err *err)
{
    int rc;
    const toml_value *v = get_typed(doc, table, path, TOML_INTEGER, err, &rc);
    if (v)
        *out = v->u.i;
    return rc;
}

int toml_get_table(const toml_doc *doc, const toml_value *table, const char *path,
                   const toml_value **out, tf_err *err)
{
    int rc;
    const toml_value *v = get_typed(doc, table, path, TOML_TABLE, err, &rc);
    if (v)
        *out = v;
    return rc;
}

int toml_get_string_array(const toml_doc *doc, const toml_value *table, const char *path,
                          const char *const **out, size_t *n, tf_err *err)
{
    int rc;
    const toml_value *v = get_typed(doc, table, path, TOML_ARRAY, err, &rc);
    if (!v)
        return rc;
    size_t len = v->u.arr.len;
    const char **list = arena_alloc(doc->mem, (len + 1) * sizeof *list);
    if (!list)
        return tf_errf(err, "%s: out of memory", doc->name);
    for (size_t i = 0; i < len; i++) {
        const toml_value *s = v->u.arr.items[i];
        if (s->type != TOML_STRING || has_nul(s))
            return toml_errf(doc, s->pos, err, "\"%s\" must be an array of strings: item %zu is %s",
                             path, i + 1,
                             s->type == TOML_STRING ? "a string with a NUL" : a_type(s->type));
        list[i] = s->u.str.s;
    }
    list[len] = NULL;
    *out = list;
    *n = len;
    return 1;
}

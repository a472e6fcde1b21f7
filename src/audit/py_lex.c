#include "py_lex.h"

#include "base/vec.h"

#include <string.h>

void py_lex_init(py_lexer *lx, const char *src, uint32_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->collect_comments = true;
    lx->src = src;
    lx->len = len;
    lx->line_start = true;
    lx->n_indents = 1; /* indents[0] = 0 */
    /* A UTF-8 byte order mark is not part of the source. */
    if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
        lx->pos = 3;
}

void py_lex_init_range(py_lexer *lx, const char *src, uint32_t start, uint32_t end)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->pos = start;
    lx->len = end;
    lx->depth = 1;
    lx->n_indents = 1;
    lx->any_token = true;
}

static bool is_id_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_id_char(unsigned char c)
{
    return is_id_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static py_token tok(uint8_t kind, uint32_t start, uint32_t end)
{
    return (py_token){.kind = kind, .start = start, .end = end};
}

static py_token lex_error(py_lexer *lx, const char *msg, uint32_t at)
{
    if (!lx->error) {
        lx->error = msg;
        lx->error_pos = at;
    }
    return tok(PT_ERROR, at, at + (at < lx->len));
}

/* ---- keywords ---- */

static uint8_t keyword(const char *s, uint32_t n)
{
    static const char *const kws[] = {
        NULL,    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",
        "break", "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",
        "for",   "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal",
        "not",   "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    /* Keywords start with a letter from F..y and are 2 to 8 long: most names fail here. */
    if (n < 2 || n > 8 || !strchr("FNTabcdefgilnoprtwy", s[0]))
        return KW_NONE;
    for (uint8_t i = 1; i < sizeof kws / sizeof *kws; i++)
        if (kws[i][0] == s[0] && kws[i][1] == s[1] && strlen(kws[i]) == n && !memcmp(kws[i], s, n))
            return i;
    return KW_NONE;
}

/* ---- strings ---- */

/* Prefix flags when S[0..N) is a string prefix (r, b, f, t, u and their combinations). */
static int string_prefix(const char *s, uint32_t n)
{
    int flags = 0;
    if (n > 2)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int f;
        switch (s[i] | 0x20) {
        case 'r':
            f = PS_RAW;
            break;
        case 'b':
            f = PS_BYTES;
            break;
        case 'f':
            f = PS_FMT;
            break;
        case 't':
            f = PS_TEMPLATE;
            break;
        case 'u':
            f = n == 1 ? 0x10 : -1;
            break;
        default:
            f = -1;
        }
        if (f < 0 || (flags & f))
            return -1;
        flags |= f;
    }
    flags &= ~0x10;
    /* bytes cannot be formatted; f and t exclude each other */
    if ((flags & PS_BYTES && flags & (PS_FMT | PS_TEMPLATE)) ||
        (flags & PS_FMT && flags & PS_TEMPLATE))
        return -1;
    return flags;
}

typedef struct str_scan {
    const char *s;
    uint32_t len;
    void (*fn)(void *ctx, uint32_t start, uint32_t end);
    void *ctx;
    int fields;
    int depth; /* nested fields and strings: bounded */
} str_scan;

static bool scan_string(str_scan *ss, uint32_t *pos, int flags);

/* A quote at P inside a field's expression: a string whose prefix ends at P. */
static bool scan_nested_string(str_scan *ss, uint32_t *p, uint32_t id_start)
{
    int flags = string_prefix(ss->s + id_start, *p - id_start);
    if (flags < 0)
        flags = 0;
    return scan_string(ss, p, flags);
}

/* The format spec after a field's ':' up to its closing '}' (which stays at *P). */
static bool scan_spec(str_scan *ss, uint32_t *p, char q, bool triple);

/* A replacement field from just after '{' to just after its '}'. */
static bool scan_field(str_scan *ss, uint32_t *p, char q, bool triple)
{
    const char *s = ss->s;
    uint32_t start = *p, expr_end = 0;
    int depth = 0;
    uint32_t id_start = 0;
    bool in_id = false;
    if (++ss->depth > 64)
        return false;
    while (*p < ss->len) {
        unsigned char c = (unsigned char)s[*p];
        if (is_id_char(c)) {
            if (!in_id)
                id_start = *p;
            in_id = true;
            (*p)++;
            continue;
        }
        bool after_id = in_id;
        in_id = false;
        if (c == '\'' || c == '"') {
            if (!scan_nested_string(ss, p, after_id ? id_start : *p))
                return false;
            continue;
        }
        if (c == '#') { /* a comment inside a multi-line field (3.12) */
            while (*p < ss->len && s[*p] != '\n' && s[*p] != '\r')
                (*p)++;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']') && depth > 0) {
            depth--;
        } else if (c == '}' && depth > 0) {
            depth--;
        } else if (depth == 0 && (c == '}' || c == ':' ||
                                  (c == '!' && (*p + 1 >= ss->len || s[*p + 1] != '=')))) {
            if (!expr_end)
                expr_end = *p;
            if (c == ':') {
                (*p)++;
                if (!scan_spec(ss, p, q, triple))
                    return false;
                c = '}';
            } else if (c == '!') {
                (*p)++;
                continue;
            }
            if (*p >= ss->len || s[*p] != '}')
                return false;
            (*p)++;
            ss->fields++;
            if (ss->fn)
                ss->fn(ss->ctx, start, expr_end);
            ss->depth--;
            return true;
        } else if (depth == 0 && c == '=' && !expr_end && *p > start &&
                   !strchr("=!<>:", s[*p - 1]) && *p + 1 < ss->len && s[*p + 1] != '=') {
            uint32_t k = *p + 1; /* f"{x=}": the self-documenting form */
            while (k < ss->len && (s[k] == ' ' || s[k] == '\t'))
                k++;
            if (k < ss->len && (s[k] == '}' || s[k] == '!' || s[k] == ':'))
                expr_end = *p;
        }
        (*p)++;
    }
    return false;
}

static bool scan_spec(str_scan *ss, uint32_t *p, char q, bool triple)
{
    const char *s = ss->s;
    while (*p < ss->len) {
        char c = s[*p];
        if (c == '}')
            return true;
        if (c == '{') {
            (*p)++;
            if (!scan_field(ss, p, q, triple))
                return false;
            continue;
        }
        if (c == q && (!triple || (*p + 2 < ss->len && s[*p + 1] == q && s[*p + 2] == q)))
            return false; /* the string ended inside the spec */
        if (c == '\\' && *p + 1 < ss->len)
            (*p)++;
        (*p)++;
    }
    return false;
}

/* A string literal whose opening quote is at *P; leaves *P after the closing quote. */
static bool scan_string(str_scan *ss, uint32_t *pos, int flags)
{
    const char *s = ss->s;
    uint32_t p = *pos;
    char q = s[p];
    bool triple = p + 2 < ss->len && s[p + 1] == q && s[p + 2] == q;
    bool fmt = flags & (PS_FMT | PS_TEMPLATE);
    if (++ss->depth > 64)
        return false;
    p += triple ? 3 : 1;
    while (p < ss->len) {
        char c = s[p];
        if (c == '\\' && fmt && !(flags & PS_RAW) && p + 2 < ss->len && s[p + 1] == 'N' &&
            s[p + 2] == '{') {
            while (p < ss->len && s[p] != '}' && s[p] != q) /* \N{NAME}: not a field */
                p++;
            p += p < ss->len && s[p] == '}';
            continue;
        }
        if (c == '\\') { /* escapes a quote, never a brace of an f-string */
            p += p + 1 < ss->len && !(fmt && (s[p + 1] == '{' || s[p + 1] == '}')) ? 2 : 1;
            continue;
        }
        if (!triple && (c == '\n' || c == '\r'))
            return false;
        if (c == q && (!triple || (p + 2 < ss->len && s[p + 1] == q && s[p + 2] == q))) {
            *pos = p + (triple ? 3 : 1);
            ss->depth--;
            return true;
        }
        if (fmt && c == '{') {
            if (p + 1 < ss->len && s[p + 1] == '{') {
                p += 2;
                continue;
            }
            p++;
            if (!scan_field(ss, &p, q, triple))
                return false;
            continue;
        }
        p++;
    }
    return false;
}

void py_string_body(const char *src, const py_token *t, uint32_t *body, uint32_t *body_end)
{
    uint32_t p = t->start;
    while (src[p] != '\'' && src[p] != '"')
        p++;
    char q = src[p];
    uint32_t qn = p + 2 < t->end && src[p + 1] == q && src[p + 2] == q ? 3 : 1;
    if (t->end - p < 2 * qn) /* "''" is empty, "'''" is never a whole token */
        qn = 1;
    *body = p + qn;
    *body_end = t->end - qn;
}

int py_fstring_fields(const char *src, const py_token *t,
                      void (*fn)(void *ctx, uint32_t start, uint32_t end), void *ctx)
{
    str_scan ss = {.s = src, .len = t->end, .fn = fn, .ctx = ctx};
    uint32_t p = t->start;
    while (src[p] != '\'' && src[p] != '"')
        p++;
    scan_string(&ss, &p, t->str);
    return ss.fields;
}

/* ---- numbers and operators ---- */

static uint32_t scan_digits(const char *s, uint32_t p, uint32_t len, bool hex)
{
    while (p < len && (is_digit((unsigned char)s[p]) || s[p] == '_' ||
                       (hex && strchr("abcdefABCDEF", s[p]) && s[p])))
        p++;
    return p;
}

static uint32_t scan_number(const py_lexer *lx, uint32_t p)
{
    const char *s = lx->src;
    uint32_t len = lx->len;
    if (s[p] == '0' && p + 1 < len && strchr("xXoObB", s[p + 1]) && s[p + 1])
        return scan_digits(s, p + 2, len, s[p + 1] == 'x' || s[p + 1] == 'X');
    p = scan_digits(s, p, len, false);
    if (p < len && s[p] == '.')
        p = scan_digits(s, p + 1, len, false);
    if (p < len && (s[p] == 'e' || s[p] == 'E')) {
        uint32_t q = p + 1;
        if (q < len && (s[q] == '+' || s[q] == '-'))
            q++;
        if (q < len && is_digit((unsigned char)s[q]))
            p = scan_digits(s, q, len, false);
    }
    if (p < len && (s[p] == 'j' || s[p] == 'J'))
        p++;
    return p;
}

static const struct {
    char text[4];
    uint8_t op;
} ops[] = {
    {"**=", OP_DSTAREQ},
    {"//=", OP_DSLASHEQ},
    {">>=", OP_RSHIFTEQ},
    {"<<=", OP_LSHIFTEQ},
    {"...", OP_ELLIPSIS},
    {"!=", OP_NOTEQUAL},
    {"**", OP_DSTAR},
    {"//", OP_DSLASH},
    {">>", OP_RSHIFT},
    {"<<", OP_LSHIFT},
    {"<=", OP_LESSEQUAL},
    {">=", OP_GREATEREQUAL},
    {"==", OP_EQEQUAL},
    {"->", OP_RARROW},
    {":=", OP_COLONEQ},
    {"+=", OP_PLUSEQ},
    {"-=", OP_MINUSEQ},
    {"*=", OP_STAREQ},
    {"/=", OP_SLASHEQ},
    {"%=", OP_PERCENTEQ},
    {"&=", OP_AMPEREQ},
    {"|=", OP_VBAREQ},
    {"^=", OP_CIRCUMFLEXEQ},
    {"@=", OP_ATEQ},
    {"(", OP_LPAR},
    {")", OP_RPAR},
    {"[", OP_LSQB},
    {"]", OP_RSQB},
    {"{", OP_LBRACE},
    {"}", OP_RBRACE},
    {":", OP_COLON},
    {",", OP_COMMA},
    {";", OP_SEMI},
    {"+", OP_PLUS},
    {"-", OP_MINUS},
    {"*", OP_STAR},
    {"/", OP_SLASH},
    {"|", OP_VBAR},
    {"&", OP_AMPER},
    {"<", OP_LESS},
    {">", OP_GREATER},
    {"=", OP_EQUAL},
    {".", OP_DOT},
    {"%", OP_PERCENT},
    {"~", OP_TILDE},
    {"^", OP_CIRCUMFLEX},
    {"@", OP_AT},
    {"!", OP_BANG},
};

static py_token lex_op(py_lexer *lx)
{
    uint32_t p = lx->pos, rest = lx->len - p;
    char c = lx->src[p];
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        if (ops[i].text[0] != c) /* the table is longest first: the first match is it */
            continue;
        size_t n = ops[i].text[1] ? ops[i].text[2] ? 3 : 2 : 1;
        if (n <= rest && !memcmp(lx->src + p, ops[i].text, n)) {
            py_token t = tok(PT_OP, p, p + (uint32_t)n);
            t.op = ops[i].op;
            lx->pos += (uint32_t)n;
            if (t.op == OP_LPAR || t.op == OP_LSQB || t.op == OP_LBRACE)
                lx->depth++;
            else if ((t.op == OP_RPAR || t.op == OP_RSQB || t.op == OP_RBRACE) && lx->depth > 0)
                lx->depth--;
            return t;
        }
    }
    lx->pos++;
    return lex_error(lx, "invalid character", p);
}

/* ---- lines, comments, indentation ---- */

static bool is_eol(const py_lexer *lx, uint32_t p)
{
    return p < lx->len && (lx->src[p] == '\n' || lx->src[p] == '\r');
}

static uint32_t skip_eol(const py_lexer *lx, uint32_t p)
{
    if (lx->src[p] == '\r' && p + 1 < lx->len && lx->src[p + 1] == '\n')
        return p + 2;
    return p + 1;
}

/* A comment that may suppress findings: it names testfence, or holds "noqa" (any case, as
 * flake8 and ruff read it). */
static bool suppression_like(const char *s, uint32_t start, uint32_t end)
{
    static const char needle[] = "testfence";
    for (uint32_t i = start; i + 4 <= end; i++) {
        if (i + sizeof needle - 1 <= end && !memcmp(s + i, needle, sizeof needle - 1))
            return true;
        if ((s[i] | 0x20) == 'n' && (s[i + 1] | 0x20) == 'o' && (s[i + 2] | 0x20) == 'q' &&
            (s[i + 3] | 0x20) == 'a')
            return true;
    }
    return false;
}

static void comment(py_lexer *lx, uint32_t start, uint32_t end, bool own_line)
{
    if (!lx->collect_comments)
        return; /* f-string fields: their comments were seen with the string */
    if (!suppression_like(lx->src, start, end))
        return;
    py_comment *nv = vec_grow(lx->comments, &lx->cap_comments, lx->n_comments, sizeof *nv);
    if (!nv) {
        lx->oom = true;
        return;
    }
    lx->comments = nv;
    lx->comments[lx->n_comments++] = (py_comment){start, end, own_line};
}

static uint32_t skip_comment(py_lexer *lx, uint32_t p, bool own_line)
{
    uint32_t start = p;
    while (p < lx->len && lx->src[p] != '\n' && lx->src[p] != '\r')
        p++;
    comment(lx, start, p, own_line);
    return p;
}

/* At the start of a logical line: measure its indentation, skipping blank and comment
 * lines. Returns true with *COL set when a line with code starts at lx->pos. */
static bool line_indent(py_lexer *lx, int *col)
{
    for (;;) {
        uint32_t p = lx->pos;
        int c = 0;
        while (p < lx->len) {
            char ch = lx->src[p];
            if (ch == ' ')
                c++;
            else if (ch == '\t')
                c = (c / 8 + 1) * 8;
            else if (ch == '\f')
                c = 0;
            else
                break;
            p++;
        }
        if (p < lx->len && lx->src[p] == '#')
            p = skip_comment(lx, p, true);
        if (p >= lx->len) {
            lx->pos = p;
            return false;
        }
        if (is_eol(lx, p)) {
            lx->pos = skip_eol(lx, p);
            continue;
        }
        if (lx->src[p] == '\\' && is_eol(lx, p + 1)) { /* a continued blank line */
            lx->pos = skip_eol(lx, p + 1);
            continue;
        }
        lx->pos = p;
        *col = c;
        return true;
    }
}

/* INDENT, DEDENT, EOF (the caller finishes the file) or an error into *T; false when
 * the line's indentation is unchanged. */
static bool indentation(py_lexer *lx, py_token *t)
{
    int col;
    lx->line_start = false;
    if (!line_indent(lx, &col)) {
        *t = tok(PT_EOF, lx->pos, lx->pos);
        return true;
    }
    int top = lx->indents[lx->n_indents - 1];
    if (col > top) {
        if (lx->n_indents == PY_MAX_INDENT)
            *t = lex_error(lx, "too many levels of indentation", lx->pos);
        else
            lx->indents[lx->n_indents++] = col, *t = tok(PT_INDENT, lx->pos, lx->pos);
        return true;
    }
    while (col < lx->indents[lx->n_indents - 1]) {
        lx->n_indents--;
        lx->pending_dedents++;
    }
    if (col != lx->indents[lx->n_indents - 1]) {
        lx->pending_dedents = 0; /* the parser resynchronises on the next line */
        *t = lex_error(lx, "unindent does not match any outer indentation level", lx->pos);
        return true;
    }
    if (!lx->pending_dedents)
        return false;
    lx->pending_dedents--;
    *t = tok(PT_DEDENT, lx->pos, lx->pos);
    return true;
}

static py_token lex_word(py_lexer *lx)
{
    uint32_t p = lx->pos;
    while (p < lx->len && is_id_char((unsigned char)lx->src[p]))
        p++;
    if (p < lx->len && (lx->src[p] == '\'' || lx->src[p] == '"')) {
        int flags = string_prefix(lx->src + lx->pos, p - lx->pos);
        if (flags >= 0) {
            str_scan ss = {.s = lx->src, .len = lx->len};
            uint32_t start = lx->pos;
            if (!scan_string(&ss, &p, flags)) {
                lx->pos = lx->len;
                return lex_error(lx, "unterminated string literal", start);
            }
            py_token t = tok(PT_STRING, start, p);
            t.str = (uint8_t)flags;
            lx->pos = p;
            return t;
        }
    }
    py_token t = tok(PT_NAME, lx->pos, p);
    t.kw = keyword(lx->src + lx->pos, p - lx->pos);
    lx->pos = p;
    return t;
}

/* End of input: a final NEWLINE, then a DEDENT per open block, then EOF. */
static py_token finish(py_lexer *lx)
{
    if (lx->any_token && !lx->last_newline && lx->depth == 0)
        return tok(PT_NEWLINE, lx->len, lx->len);
    if (lx->n_indents > 1) {
        lx->n_indents--;
        return tok(PT_DEDENT, lx->len, lx->len);
    }
    return tok(PT_EOF, lx->len, lx->len);
}

static py_token lex_token(py_lexer *lx);

py_token py_lex_next(py_lexer *lx)
{
    py_token t = lex_token(lx);
    if (t.kind != PT_EOF) {
        lx->any_token = true;
        lx->last_newline = t.kind == PT_NEWLINE || t.kind == PT_INDENT || t.kind == PT_DEDENT;
    }
    return t;
}

static py_token lex_token(py_lexer *lx)
{
    if (lx->pending_dedents) {
        lx->pending_dedents--;
        return tok(PT_DEDENT, lx->pos, lx->pos);
    }
    py_token t;
    if (lx->line_start && lx->depth == 0 && indentation(lx, &t))
        return t.kind == PT_EOF ? finish(lx) : t;
    for (;;) {
        uint32_t p = lx->pos;
        while (p < lx->len && (lx->src[p] == ' ' || lx->src[p] == '\t' || lx->src[p] == '\f'))
            p++;
        lx->pos = p;
        if (p >= lx->len)
            return finish(lx);
        unsigned char c = (unsigned char)lx->src[p];
        if (c == '\\' && (is_eol(lx, p + 1) || p + 1 == lx->len)) {
            lx->pos = p + 1 < lx->len ? skip_eol(lx, p + 1) : p + 1;
            continue;
        }
        if (c == '#') {
            lx->pos = skip_comment(lx, p, false);
            continue;
        }
        if (c == '\n' || c == '\r') {
            lx->pos = skip_eol(lx, p);
            if (lx->depth > 0)
                continue;
            lx->line_start = true;
            if (lx->last_newline || !lx->any_token)
                return lex_token(lx);
            return tok(PT_NEWLINE, p, p);
        }
        if (c == '\0') {
            lx->pos = p + 1;
            return lex_error(lx, "source code cannot contain null bytes", p);
        }
        if (is_id_start(c))
            return lex_word(lx);
        if (is_digit(c) ||
            (c == '.' && p + 1 < lx->len && is_digit((unsigned char)lx->src[p + 1]))) {
            lx->pos = scan_number(lx, p);
            return tok(PT_NUMBER, p, lx->pos);
        }
        if (c == '\'' || c == '"')
            return lex_word(lx);
        return lex_op(lx);
    }
}

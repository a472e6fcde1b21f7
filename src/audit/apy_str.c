#include "apy_str.h"

#include "apy_eval.h"
#include "base/text.h"

#include <string.h>

void apy_str_put(apy_str *s, const char *p, size_t n)
{
    if (s->len + n >= sizeof s->text) {
        s->truncated = true;
        n = sizeof s->text - 1 - s->len;
    }
    memcpy(s->text + s->len, p, n);
    s->len += n;
    s->text[s->len] = '\0';
}

/* CP as UTF-8 (surrogates too, as Python keeps them); nothing beyond U+10FFFF. */
static void str_utf8(apy_str *s, unsigned long cp)
{
    char b[4];
    apy_str_put(s, b, tf_utf8_put(b, cp));
}

/* \xHH, \uXXXX, \UXXXXXXXX at P: the digits consumed, 0 when malformed. */
static size_t str_hex_escape(apy_str *s, const char *p, size_t n, size_t digits)
{
    unsigned long cp;
    if (tf_hex_read(p, n, digits, &cp) < 0)
        return 0;
    str_utf8(s, cp);
    return digits;
}

/* Literal text, decoding the escapes that matter for paths. FMT: "{{" and "}}" are braces. */
static void str_content(apy_str *s, const char *p, size_t n, bool raw, bool fmt)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (fmt && (c == '{' || c == '}') && i + 1 < n && p[i + 1] == c)
            i++;
        else if (!raw && c == '\\' && i + 1 < n) {
            char e = p[++i];
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            size_t used = digits ? str_hex_escape(s, p + i + 1, n - i - 1, digits) : 0;
            if (used) {
                i += used;
                continue;
            }
            if (e == '\n' || e == '\r') /* a continued line */
                continue;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (!strchr("\\'\"nt", e)) /* keep unknown escapes as written */
                apy_str_put(s, "\\", 1);
        }
        apy_str_put(s, &c, 1);
    }
}

/* One string literal; f-string fields become their value when known, else '*'. */
static void string_value(apy *P, uint32_t n, apy_str *s, int depth)
{
    py_token tok = {.kind = PT_STRING,
                    .str = apy_node(P, n)->op,
                    .start = apy_node(P, n)->start,
                    .end = apy_node(P, n)->end};
    uint32_t body, body_end;
    py_string_body(P->src, &tok, &body, &body_end);
    bool raw = tok.str & PS_RAW, fmt = tok.str & (PS_FMT | PS_TEMPLATE);
    if (!fmt) {
        str_content(s, P->src + body, body_end - body, raw, false);
        return;
    }
    /* Literal runs between fields; each field's braces span from its '{' to its '}'. */
    uint32_t at = body;
    for (uint32_t f = apy_node(P, n)->kid; f; f = apy_node(P, f)->next) {
        uint32_t open = apy_node(P, f)->start;
        while (open > at && P->src[open - 1] != '{')
            open--;
        if (open > at)
            str_content(s, P->src + at, open - 1 - at, raw, true);
        tf_pathval v;
        apy_eval(P, apy_node(P, f)->kid, depth + 1, &v);
        if (v.kind == TF_PATH_LITERAL && !tf_path_is_absolute(v.text)) {
            apy_str_put(s, v.text, strlen(v.text));
            s->wild |= v.wild;
        } else {
            apy_str_put(s, "*", 1);
            s->wild = true;
        }
        /* skip to after this field's closing brace: fields do not nest at this level */
        uint32_t close = apy_node(P, f)->end;
        int d = 0;
        while (close < body_end && !(P->src[close] == '}' && d == 0)) {
            d += P->src[close] == '{';
            d -= P->src[close] == '}';
            close++;
        }
        at = close < body_end ? close + 1 : body_end;
    }
    if (at < body_end)
        str_content(s, P->src + at, body_end - at, raw, true);
    if (!apy_node(P, n)->kid && strchr(s->text, '{')) /* fields the parser could not read */
        s->wild = true;
}

/* A string or an implicit concatenation ("a" "b"). */
void apy_strings_value(apy *P, uint32_t n, apy_str *s, int depth)
{
    memset(s, 0, sizeof *s);
    if (apy_kind(P, n) == N_STRING) {
        string_value(P, n, s, depth);
        return;
    }
    for (uint32_t k = apy_node(P, n)->kid; k; k = apy_node(P, k)->next)
        string_value(P, k, s, depth);
}
/* The literal text of a string argument, or NULL. */
const char *apy_literal_arg(apy *P, uint32_t a, apy_str *s)
{
    if (apy_kind(P, a) != N_STRING && apy_kind(P, a) != N_CONCAT)
        return NULL;
    apy_strings_value(P, a, s, 0);
    return s->wild ? NULL : s->text;
}

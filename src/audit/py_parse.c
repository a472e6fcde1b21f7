#include "py_parse.h"

#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

/* Nesting beyond this is a syntax error (CPython stops at 200 parentheses too). */
#define PY_MAX_DEPTH 200

typedef struct parser {
    py_tree *t;
    py_lexer lx;
    py_token tok, peek;
    bool has_peek;
    bool failed;      /* the current statement has an error: unwind to the statement loop */
    bool speculating; /* errors are not recorded (trying a soft keyword) */
    bool oom;
    int depth;
} parser;

typedef struct kids {
    uint32_t head, tail;
} kids;

/* ---- nodes ---- */

static py_node *N(parser *p, uint32_t n)
{
    return &p->t->nodes[n];
}

static uint32_t node(parser *p, int kind, uint32_t start, uint32_t end, uint32_t kid)
{
    py_tree *t = p->t;
    py_node *nv = vec_grow(t->nodes, &t->cap_nodes, t->n_nodes, sizeof *nv);
    if (!nv || t->n_nodes == UINT32_MAX) {
        p->oom = p->failed = true;
        return 0;
    }
    t->nodes = nv;
    uint32_t n = t->n_nodes++;
    t->nodes[n] = (py_node){.kind = (uint8_t)kind, .start = start, .end = end, .kid = kid};
    return n;
}

static void push(parser *p, kids *k, uint32_t n)
{
    if (!n)
        return;
    if (k->tail)
        N(p, k->tail)->next = n;
    else
        k->head = n;
    k->tail = n;
    while (N(p, k->tail)->next) /* n may already head a chain */
        k->tail = N(p, k->tail)->next;
}

static uint32_t empty(parser *p, uint32_t at)
{
    return node(p, N_EMPTY, at, at, 0);
}

/* A node of KIND over its children K, spanning from START to the last child's end. */
static uint32_t wrap(parser *p, int kind, uint32_t start, kids k)
{
    uint32_t end = k.tail ? N(p, k.tail)->end : start;
    return node(p, kind, start, end, k.head);
}

static uint32_t wrap1(parser *p, int kind, uint32_t start, uint32_t a)
{
    kids k = {0};
    push(p, &k, a);
    return wrap(p, kind, start, k);
}

static uint32_t wrap2(parser *p, int kind, uint32_t start, uint32_t a, uint32_t b)
{
    kids k = {0};
    push(p, &k, a);
    push(p, &k, b);
    return wrap(p, kind, start, k);
}

/* ---- tokens ---- */

static void fail(parser *p, const char *msg, uint32_t at)
{
    if (!p->failed && !p->speculating && !p->t->has_error) {
        p->t->has_error = true;
        p->t->error_pos = at;
        p->t->error_msg = msg;
    }
    p->failed = true;
}

static void advance(parser *p)
{
    if (p->has_peek) {
        p->tok = p->peek;
        p->has_peek = false;
    } else {
        p->tok = py_lex_next(&p->lx);
    }
    if (p->tok.kind == PT_ERROR)
        fail(p, p->lx.error ? p->lx.error : "invalid syntax", p->tok.start);
}

static const py_token *peek(parser *p)
{
    if (!p->has_peek) {
        p->peek = py_lex_next(&p->lx);
        p->has_peek = true;
    }
    return &p->peek;
}

static bool is_op(const parser *p, int op)
{
    return p->tok.kind == PT_OP && p->tok.op == op;
}

static bool is_kw(const parser *p, int kw)
{
    return p->tok.kind == PT_NAME && p->tok.kw == kw;
}

/* After an error nothing more is consumed: the statement loop resynchronises from there. */
static bool accept_op(parser *p, int op)
{
    if (p->failed || !is_op(p, op))
        return false;
    advance(p);
    return true;
}

static bool accept_kw(parser *p, int kw)
{
    if (p->failed || !is_kw(p, kw))
        return false;
    advance(p);
    return true;
}

static bool expect_op(parser *p, int op, const char *msg)
{
    if (accept_op(p, op))
        return true;
    fail(p, msg, p->tok.start);
    return false;
}

static bool is_soft(const parser *p, const char *word)
{
    size_t n = strlen(word);
    return p->tok.kind == PT_NAME && !p->tok.kw && p->tok.end - p->tok.start == n &&
           !memcmp(p->t->src + p->tok.start, word, n);
}

/* A plain name (not a hard keyword) as an N_NAME node. */
static uint32_t name(parser *p)
{
    if (p->tok.kind != PT_NAME || p->tok.kw) {
        fail(p, "expected a name", p->tok.start);
        return 0;
    }
    uint32_t n = node(p, N_NAME, p->tok.start, p->tok.end, 0);
    advance(p);
    return n;
}

static bool enter(parser *p)
{
    if (++p->depth > PY_MAX_DEPTH) {
        fail(p, "too many nested parentheses or blocks", p->tok.start);
        return false;
    }
    return true;
}

/* Does the current token start an expression? */
static bool starts_expr(const parser *p)
{
    switch (p->tok.kind) {
    case PT_NAME:
        return !p->tok.kw || p->tok.kw == KW_NONE_ || p->tok.kw == KW_TRUE ||
               p->tok.kw == KW_FALSE || p->tok.kw == KW_NOT || p->tok.kw == KW_LAMBDA ||
               p->tok.kw == KW_AWAIT || p->tok.kw == KW_YIELD;
    case PT_NUMBER:
    case PT_STRING:
        return true;
    case PT_OP:
        return p->tok.op == OP_LPAR || p->tok.op == OP_LSQB || p->tok.op == OP_LBRACE ||
               p->tok.op == OP_MINUS || p->tok.op == OP_PLUS || p->tok.op == OP_TILDE ||
               p->tok.op == OP_ELLIPSIS || p->tok.op == OP_STAR;
    default:
        return false;
    }
}

/* ---- expressions ---- */

static uint32_t expr(parser *p);
static uint32_t named_expr(parser *p);
static uint32_t star_exprs(parser *p, bool named);
static uint32_t disjunction(parser *p);
static uint32_t bitor (parser * p);
static uint32_t params(parser *p, int close);
static uint32_t yield_expr(parser *p);

/* The fields of an f- or t-string, parsed by a lexer over each field's range. */
typedef struct field_list {
    uint32_t v[32][2];
    int n;
} field_list;

static void collect_field(void *ctx, uint32_t start, uint32_t end)
{
    field_list *fl = ctx;
    if (fl->n < 32) {
        fl->v[fl->n][0] = start;
        fl->v[fl->n][1] = end;
        fl->n++;
    }
}

/* One field: a failure there is not a syntax error of the file (the lexer already checked
 * the string's structure), only a field the audit cannot read. */
static uint32_t field_expr(parser *p, uint32_t start, uint32_t end)
{
    py_lexer saved = p->lx;
    py_token tok = p->tok, pk = p->peek;
    bool has_peek = p->has_peek, spec = p->speculating, failed = p->failed;
    uint32_t n_nodes = p->t->n_nodes;
    py_lex_init_range(&p->lx, p->t->src, start, end);
    p->has_peek = false;
    p->speculating = true;
    advance(p);
    uint32_t e = star_exprs(p, true);
    bool ok = !p->failed && p->tok.kind == PT_EOF;
    p->lx = saved;
    p->tok = tok;
    p->peek = pk;
    p->has_peek = has_peek;
    p->speculating = spec;
    if (p->oom)
        return 0;
    p->failed = failed;
    if (!ok) {
        p->t->n_nodes = n_nodes;
        return 0;
    }
    return wrap1(p, N_FIELD, start, e);
}

static uint32_t string_atom(parser *p)
{
    py_token t = p->tok;
    kids fields = {0};
    advance(p);
    if (t.str & (PS_FMT | PS_TEMPLATE)) {
        field_list fl = {.n = 0};
        py_fstring_fields(p->t->src, &t, collect_field, &fl);
        for (int i = 0; i < fl.n && !p->oom; i++)
            push(p, &fields, field_expr(p, fl.v[i][0], fl.v[i][1]));
    }
    uint32_t s = node(p, N_STRING, t.start, t.end, fields.head);
    if (s)
        N(p, s)->op = t.str;
    return s;
}

static uint32_t strings(parser *p)
{
    uint32_t start = p->tok.start, first = string_atom(p);
    if (p->tok.kind != PT_STRING)
        return first;
    kids k = {0};
    push(p, &k, first);
    while (p->tok.kind == PT_STRING && !p->failed)
        push(p, &k, string_atom(p));
    return wrap(p, N_CONCAT, start, k);
}

/* for target in iterable [if cond]... (repeated), after the element. */
static uint32_t comprehension(parser *p, int flavour, uint32_t start, uint32_t elt, int close)
{
    kids k = {0};
    push(p, &k, elt);
    while (!p->failed && (is_kw(p, KW_FOR) || is_kw(p, KW_ASYNC))) {
        uint32_t fstart = p->tok.start;
        accept_kw(p, KW_ASYNC);
        if (!accept_kw(p, KW_FOR)) {
            fail(p, "expected 'for'", p->tok.start);
            break;
        }
        kids c = {0};
        push(p, &c, star_exprs(p, false) /* targets stop before 'in' */);
        if (!accept_kw(p, KW_IN))
            fail(p, "expected 'in'", p->tok.start);
        push(p, &c, disjunction(p));
        while (!p->failed && accept_kw(p, KW_IF))
            push(p, &c, disjunction(p));
        push(p, &k, wrap(p, N_COMPFOR, fstart, c));
    }
    uint32_t n = wrap(p, N_COMP, start, k);
    if (n) {
        N(p, n)->flags = (uint16_t)flavour;
        N(p, n)->end = p->tok.end;
    }
    expect_op(p, close, "expected a closing bracket");
    return n;
}

/* ( ... ): a tuple, a generator, a yield or a parenthesised expression. */
static uint32_t paren_atom(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    if (is_op(p, OP_RPAR)) {
        uint32_t n = node(p, N_TUPLE, start, p->tok.end, 0);
        advance(p);
        return n;
    }
    if (is_kw(p, KW_YIELD)) {
        uint32_t y = yield_expr(p);
        expect_op(p, OP_RPAR, "expected ')'");
        return y;
    }
    uint32_t first = is_op(p, OP_STAR) ? star_exprs(p, true) : named_expr(p);
    if (is_kw(p, KW_FOR) || is_kw(p, KW_ASYNC))
        return comprehension(p, COMP_GEN, start, first, OP_RPAR);
    if (!is_op(p, OP_COMMA)) {
        if (first && N(p, first)->kind == N_TUPLE && is_op(p, OP_RPAR))
            N(p, first)->flags |= FL_PARENS;
        expect_op(p, OP_RPAR, "expected ')'");
        return first;
    }
    kids k = {0};
    push(p, &k, first);
    while (!p->failed && accept_op(p, OP_COMMA) && !is_op(p, OP_RPAR))
        push(p, &k, is_op(p, OP_STAR) ? star_exprs(p, true) : named_expr(p));
    uint32_t n = wrap(p, N_TUPLE, start, k);
    if (n) {
        N(p, n)->end = p->tok.end;
        N(p, n)->flags |= FL_PARENS;
    }
    expect_op(p, OP_RPAR, "expected ')'");
    return n;
}

static uint32_t star_or_named(parser *p)
{
    if (is_op(p, OP_STAR)) {
        uint32_t start = p->tok.start;
        advance(p);
        return wrap1(p, N_STARRED, start, bitor (p));
    }
    return named_expr(p);
}

static uint32_t list_atom(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    if (!is_op(p, OP_RSQB)) {
        uint32_t first = star_or_named(p);
        if (is_kw(p, KW_FOR) || is_kw(p, KW_ASYNC))
            return comprehension(p, COMP_LIST, start, first, OP_RSQB);
        push(p, &k, first);
        while (!p->failed && accept_op(p, OP_COMMA) && !is_op(p, OP_RSQB))
            push(p, &k, star_or_named(p));
    }
    uint32_t n = node(p, N_LIST, start, p->tok.end, k.head);
    expect_op(p, OP_RSQB, "expected ']'");
    return n;
}

/* One entry of a dict display: key: value or **mapping. */
static uint32_t dict_entry(parser *p)
{
    uint32_t start = p->tok.start;
    if (accept_op(p, OP_DSTAR))
        return wrap1(p, N_DSTAR, start, bitor (p));
    uint32_t key = expr(p);
    expect_op(p, OP_COLON, "expected ':'");
    return wrap2(p, N_PAIR, start, key, expr(p));
}

static uint32_t brace_atom(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    if (is_op(p, OP_RBRACE)) {
        uint32_t n = node(p, N_DICT, start, p->tok.end, 0);
        advance(p);
        return n;
    }
    bool dict = is_op(p, OP_DSTAR);
    uint32_t first;
    if (dict) {
        first = dict_entry(p);
    } else {
        first = star_or_named(p);
        if (accept_op(p, OP_COLON)) {
            dict = true;
            first = wrap2(p, N_PAIR, N(p, first)->start, first, expr(p));
        }
    }
    if (is_kw(p, KW_FOR) || is_kw(p, KW_ASYNC))
        return comprehension(p, dict ? COMP_DICT : COMP_SET, start, first, OP_RBRACE);
    push(p, &k, first);
    while (!p->failed && accept_op(p, OP_COMMA) && !is_op(p, OP_RBRACE))
        push(p, &k, dict ? dict_entry(p) : star_or_named(p));
    uint32_t n = node(p, dict ? N_DICT : N_SET, start, p->tok.end, k.head);
    expect_op(p, OP_RBRACE, "expected '}'");
    return n;
}

static uint32_t atom(parser *p)
{
    py_token t = p->tok;
    switch (t.kind) {
    case PT_NAME:
        if (t.kw == KW_NONE_ || t.kw == KW_TRUE || t.kw == KW_FALSE) {
            uint32_t n = node(p, N_CONST, t.start, t.end, 0);
            if (n)
                N(p, n)->op = t.kw;
            advance(p);
            return n;
        }
        return name(p);
    case PT_NUMBER: {
        uint32_t n = node(p, N_NUMBER, t.start, t.end, 0);
        advance(p);
        return n;
    }
    case PT_STRING:
        return strings(p);
    case PT_OP:
        switch (t.op) {
        case OP_LPAR:
            return paren_atom(p);
        case OP_LSQB:
            return list_atom(p);
        case OP_LBRACE:
            return brace_atom(p);
        case OP_ELLIPSIS: {
            uint32_t n = node(p, N_CONST, t.start, t.end, 0);
            advance(p);
            return n;
        }
        default:
            break;
        }
        break;
    default:
        break;
    }
    fail(p, "invalid syntax", t.start);
    return 0;
}

/* Call arguments, after '(' up to and including ')'. */
static uint32_t call_args(parser *p, uint32_t start)
{
    kids k = {0};
    while (!p->failed && !is_op(p, OP_RPAR)) {
        uint32_t astart = p->tok.start;
        if (accept_op(p, OP_STAR)) {
            push(p, &k, wrap1(p, N_STARRED, astart, expr(p)));
        } else if (accept_op(p, OP_DSTAR)) {
            push(p, &k, wrap1(p, N_DSTAR, astart, expr(p)));
        } else if (p->tok.kind == PT_NAME && !p->tok.kw && peek(p)->kind == PT_OP &&
                   peek(p)->op == OP_EQUAL) {
            uint32_t key = name(p);
            advance(p); /* = */
            push(p, &k, wrap2(p, N_KWARG, astart, key, expr(p)));
        } else {
            uint32_t a = named_expr(p);
            if (is_kw(p, KW_FOR) || is_kw(p, KW_ASYNC)) {
                push(p, &k, comprehension(p, COMP_GEN, astart, a, OP_RPAR));
                uint32_t n = node(p, N_ARGS, start, N(p, k.tail)->end, k.head);
                return n;
            }
            push(p, &k, a);
        }
        if (!accept_op(p, OP_COMMA))
            break;
    }
    uint32_t n = node(p, N_ARGS, start, p->tok.end, k.head);
    expect_op(p, OP_RPAR, "expected ')'");
    return n;
}

/* One subscript element: an expression or a slice. */
static uint32_t slice(parser *p)
{
    uint32_t start = p->tok.start;
    if (is_op(p, OP_STAR))
        return star_or_named(p);
    uint32_t lower = is_op(p, OP_COLON) ? empty(p, start) : named_expr(p);
    if (!is_op(p, OP_COLON))
        return lower;
    kids k = {0};
    push(p, &k, lower);
    for (int part = 0; part < 2 && accept_op(p, OP_COLON); part++)
        push(p, &k,
             is_op(p, OP_COLON) || is_op(p, OP_RSQB) || is_op(p, OP_COMMA) ? empty(p, p->tok.start)
                                                                           : expr(p));
    uint32_t n = wrap(p, N_SLICE, start, k);
    return n;
}

static uint32_t subscript(parser *p)
{
    uint32_t start = p->tok.start, first = slice(p);
    if (!is_op(p, OP_COMMA))
        return first;
    kids k = {0};
    push(p, &k, first);
    while (!p->failed && accept_op(p, OP_COMMA) && !is_op(p, OP_RSQB))
        push(p, &k, slice(p));
    return wrap(p, N_TUPLE, start, k);
}

static uint32_t primary(parser *p)
{
    uint32_t start = p->tok.start, e = atom(p);
    while (!p->failed) {
        if (accept_op(p, OP_DOT)) {
            e = wrap2(p, N_ATTR, start, e, name(p));
        } else if (is_op(p, OP_LPAR)) {
            uint32_t astart = p->tok.start;
            advance(p);
            e = wrap2(p, N_CALL, start, e, call_args(p, astart));
        } else if (is_op(p, OP_LSQB)) {
            advance(p);
            uint32_t sub = subscript(p);
            e = wrap2(p, N_SUBSCRIPT, start, e, sub);
            if (e)
                N(p, e)->end = p->tok.end;
            expect_op(p, OP_RSQB, "expected ']'");
        } else {
            break;
        }
    }
    return e;
}

static uint32_t factor(parser *p);

static uint32_t power(parser *p)
{
    uint32_t start = p->tok.start;
    bool await = accept_kw(p, KW_AWAIT);
    uint32_t e = primary(p);
    if (await)
        e = wrap1(p, N_AWAIT, start, e);
    if (is_op(p, OP_DSTAR)) {
        advance(p);
        if (!enter(p))
            return 0;
        e = wrap2(p, N_BINOP, start, e, factor(p));
        p->depth--;
        if (e)
            N(p, e)->op = OP_DSTAR;
    }
    return e;
}

static uint32_t factor(parser *p)
{
    if (is_op(p, OP_MINUS) || is_op(p, OP_PLUS) || is_op(p, OP_TILDE)) {
        uint32_t start = p->tok.start;
        int op = p->tok.op;
        advance(p);
        if (!enter(p))
            return 0;
        uint32_t e = wrap1(p, N_UNARY, start, factor(p));
        p->depth--;
        if (e)
            N(p, e)->op = (uint8_t)op;
        return e;
    }
    return power(p);
}

/* Binding power of a binary operator token, 0 when it is none. */
static int binop_prec(const parser *p)
{
    if (p->tok.kind != PT_OP)
        return 0;
    switch (p->tok.op) {
    case OP_VBAR:
        return 1;
    case OP_CIRCUMFLEX:
        return 2;
    case OP_AMPER:
        return 3;
    case OP_LSHIFT:
    case OP_RSHIFT:
        return 4;
    case OP_PLUS:
    case OP_MINUS:
        return 5;
    case OP_STAR:
    case OP_SLASH:
    case OP_DSLASH:
    case OP_PERCENT:
    case OP_AT:
        return 6;
    default:
        return 0;
    }
}

/* Precedence climbing over | ^ & << >> + - * / // % @. */
static uint32_t binary(parser *p, int min_prec)
{
    uint32_t start = p->tok.start, left = factor(p);
    int prec;
    while (!p->failed && (prec = binop_prec(p)) >= min_prec) {
        int op = p->tok.op;
        advance(p);
        uint32_t right = binary(p, prec + 1);
        left = wrap2(p, N_BINOP, start, left, right);
        if (left)
            N(p, left)->op = (uint8_t)op;
    }
    return left;
}

static uint32_t bitor (parser * p)
{
    if (!enter(p))
        return 0;
    uint32_t e = binary(p, 1);
    p->depth--;
    return e;
}

static bool comparison_op(parser *p)
{
    if (p->tok.kind == PT_OP)
        switch (p->tok.op) {
        case OP_LESS:
        case OP_GREATER:
        case OP_EQEQUAL:
        case OP_GREATEREQUAL:
        case OP_LESSEQUAL:
        case OP_NOTEQUAL:
            advance(p);
            return true;
        default:
            return false;
        }
    if (accept_kw(p, KW_IN))
        return true;
    if (accept_kw(p, KW_IS)) {
        accept_kw(p, KW_NOT);
        return true;
    }
    if (is_kw(p, KW_NOT) && peek(p)->kind == PT_NAME && peek(p)->kw == KW_IN) {
        advance(p);
        advance(p);
        return true;
    }
    return false;
}

static uint32_t comparison(parser *p)
{
    uint32_t start = p->tok.start, left = bitor (p);
    if (p->failed)
        return left;
    kids k = {0};
    push(p, &k, left);
    bool any = false;
    while (!p->failed && comparison_op(p)) {
        push(p, &k, bitor (p));
        any = true;
    }
    return any ? wrap(p, N_COMPARE, start, k) : left;
}

static uint32_t inversion(parser *p)
{
    if (is_kw(p, KW_NOT)) {
        uint32_t start = p->tok.start;
        advance(p);
        if (!enter(p))
            return 0;
        uint32_t e = wrap1(p, N_NOT, start, inversion(p));
        p->depth--;
        return e;
    }
    return comparison(p);
}

static uint32_t boolop(parser *p, int kw)
{
    uint32_t start = p->tok.start;
    uint32_t first = kw == KW_OR ? boolop(p, KW_AND) : inversion(p);
    if (!is_kw(p, kw))
        return first;
    kids k = {0};
    push(p, &k, first);
    while (!p->failed && accept_kw(p, kw))
        push(p, &k, kw == KW_OR ? boolop(p, KW_AND) : inversion(p));
    uint32_t n = wrap(p, N_BOOLOP, start, k);
    if (n)
        N(p, n)->op = (uint8_t)kw;
    return n;
}

static uint32_t disjunction(parser *p)
{
    return boolop(p, KW_OR);
}

static uint32_t lambda(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    uint32_t ps = params(p, OP_COLON);
    expect_op(p, OP_COLON, "expected ':'");
    return wrap2(p, N_LAMBDA, start, ps, expr(p));
}

/* A test: lambda, or a disjunction with an optional conditional. */
static uint32_t expr(parser *p)
{
    if (!enter(p))
        return 0;
    uint32_t e;
    if (is_kw(p, KW_LAMBDA)) {
        e = lambda(p);
    } else {
        uint32_t start = p->tok.start;
        e = disjunction(p);
        if (!p->failed && is_kw(p, KW_IF)) {
            advance(p);
            uint32_t test = disjunction(p);
            if (!accept_kw(p, KW_ELSE))
                fail(p, "expected 'else' after 'if' expression", p->tok.start);
            kids k = {0};
            push(p, &k, e);
            push(p, &k, test);
            push(p, &k, expr(p));
            e = wrap(p, N_IFEXP, start, k);
        }
    }
    p->depth--;
    return e;
}

static uint32_t named_expr(parser *p)
{
    if (p->tok.kind == PT_NAME && !p->tok.kw && peek(p)->kind == PT_OP &&
        peek(p)->op == OP_COLONEQ) {
        uint32_t start = p->tok.start, target = name(p);
        advance(p);
        return wrap2(p, N_NAMED, start, target, expr(p));
    }
    return expr(p);
}

/* Comma-separated expressions (a tuple when there is a comma). NAMED allows :=; without
 * it the elements are targets, parsed above comparisons so that 'in' stops them. */
static uint32_t star_exprs(parser *p, bool named)
{
    uint32_t start = p->tok.start;
    uint32_t first = is_op(p, OP_STAR) ? star_or_named(p) : named ? named_expr(p) : bitor (p);
    if (!is_op(p, OP_COMMA))
        return first;
    kids k = {0};
    push(p, &k, first);
    while (!p->failed && accept_op(p, OP_COMMA) && starts_expr(p) && !is_kw(p, KW_YIELD))
        push(p, &k, is_op(p, OP_STAR) ? star_or_named(p) : named ? named_expr(p) : bitor (p));
    return wrap(p, N_TUPLE, start, k);
}

static uint32_t yield_expr(parser *p)
{
    uint32_t start = p->tok.start, end = p->tok.end;
    advance(p);
    if (accept_kw(p, KW_FROM)) {
        uint32_t n = wrap1(p, N_YIELD, start, expr(p));
        if (n)
            N(p, n)->flags = FL_FROM;
        return n;
    }
    if (starts_expr(p))
        return wrap1(p, N_YIELD, start, star_exprs(p, true));
    return node(p, N_YIELD, start, end, 0);
}

/* Parameters of a def (close = ')') or a lambda (close = ':'). Annotations are parsed and
 * dropped; defaults are kept. */
static uint32_t params(parser *p, int close)
{
    uint32_t start = p->tok.start;
    kids k = {0};
    while (!p->failed && !is_op(p, close)) {
        uint32_t pstart = p->tok.start;
        int flavour = PARAM_PLAIN;
        if (accept_op(p, OP_STAR))
            flavour = PARAM_STAR;
        else if (accept_op(p, OP_DSTAR))
            flavour = PARAM_DSTAR;
        else if (accept_op(p, OP_SLASH))
            flavour = PARAM_MARKER;
        uint32_t nm = 0, def = 0;
        if (flavour != PARAM_MARKER && p->tok.kind == PT_NAME)
            nm = name(p);
        else if (flavour == PARAM_PLAIN)
            fail(p, "expected a parameter name", p->tok.start);
        if (nm && close == OP_RPAR && accept_op(p, OP_COLON)) {
            if (flavour == PARAM_STAR && is_op(p, OP_STAR))
                star_or_named(p); /* *args: *Ts */
            else
                expr(p);
        }
        if (nm && accept_op(p, OP_EQUAL))
            def = expr(p);
        if (flavour == PARAM_STAR && !nm)
            flavour = PARAM_MARKER;
        uint32_t n =
            wrap2(p, N_PARAM, pstart, nm ? nm : empty(p, pstart), def ? def : empty(p, pstart));
        if (n)
            N(p, n)->flags = (uint16_t)flavour;
        push(p, &k, n);
        if (!accept_op(p, OP_COMMA))
            break;
    }
    return node(p, N_PARAMS, start, p->tok.start, k.head);
}

/* ---- statements ---- */

static uint32_t block(parser *p, int flavour);

static bool end_of_simple(const parser *p)
{
    return p->tok.kind == PT_NEWLINE || is_op(p, OP_SEMI) || p->tok.kind == PT_EOF;
}

/* Skip a balanced [...] (type parameters) without keeping it. */
static void skip_brackets(parser *p)
{
    int depth = 0;
    do {
        if (is_op(p, OP_LSQB))
            depth++;
        else if (is_op(p, OP_RSQB))
            depth--;
        else if (p->tok.kind == PT_EOF || p->tok.kind == PT_NEWLINE)
            break;
        advance(p);
    } while (depth > 0 && !p->failed);
}

static uint32_t dotted(parser *p)
{
    uint32_t start = p->tok.start;
    kids k = {0};
    push(p, &k, name(p));
    while (!p->failed && accept_op(p, OP_DOT))
        push(p, &k, name(p));
    return wrap(p, N_DOTTED, start, k);
}

static uint32_t import_alias(parser *p, bool dotted_name)
{
    uint32_t start = p->tok.start;
    uint32_t d = dotted_name ? dotted(p) : wrap1(p, N_DOTTED, start, name(p));
    uint32_t as = accept_kw(p, KW_AS) ? name(p) : empty(p, start);
    return wrap2(p, N_ALIAS, start, d, as);
}

static uint32_t import_stmt(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    do
        push(p, &k, import_alias(p, true));
    while (!p->failed && accept_op(p, OP_COMMA));
    return wrap(p, N_IMPORT, start, k);
}

static uint32_t from_import(parser *p)
{
    uint32_t start = p->tok.start;
    int level = 0;
    advance(p);
    for (;;) {
        if (accept_op(p, OP_DOT))
            level++;
        else if (accept_op(p, OP_ELLIPSIS))
            level += 3;
        else
            break;
    }
    kids k = {0};
    push(p, &k, is_kw(p, KW_IMPORT) ? empty(p, p->tok.start) : dotted(p));
    if (!accept_kw(p, KW_IMPORT))
        fail(p, "expected 'import'", p->tok.start);
    bool star = false;
    if (accept_op(p, OP_STAR)) {
        star = true;
    } else {
        bool parens = accept_op(p, OP_LPAR);
        do {
            if (parens && is_op(p, OP_RPAR))
                break;
            push(p, &k, import_alias(p, false));
        } while (!p->failed && accept_op(p, OP_COMMA));
        if (parens)
            expect_op(p, OP_RPAR, "expected ')'");
    }
    uint32_t n = wrap(p, N_FROM_IMPORT, start, k);
    if (n) {
        N(p, n)->flags = (uint16_t)(level > 0xffff ? 0xffff : level);
        N(p, n)->op = star;
    }
    return n;
}

/* The right-hand side of an assignment: a yield or expressions. */
static uint32_t assigned_value(parser *p)
{
    return is_kw(p, KW_YIELD) ? yield_expr(p) : star_exprs(p, true);
}

static uint32_t expression_statement(parser *p)
{
    uint32_t start = p->tok.start;
    uint32_t first = is_kw(p, KW_YIELD) ? yield_expr(p) : star_exprs(p, true);
    if (p->failed)
        return first;
    if (accept_op(p, OP_COLON)) { /* x: int = 1 */
        kids k = {0};
        push(p, &k, first);
        push(p, &k, expr(p));
        push(p, &k, accept_op(p, OP_EQUAL) ? assigned_value(p) : empty(p, p->tok.start));
        return wrap(p, N_ANNASSIGN, start, k);
    }
    if (p->tok.kind == PT_OP && p->tok.op >= OP_AUG_FIRST && p->tok.op <= OP_AUG_LAST) {
        int op = p->tok.op;
        advance(p);
        uint32_t n = wrap2(p, N_AUGASSIGN, start, first, assigned_value(p));
        if (n)
            N(p, n)->op = (uint8_t)op;
        return n;
    }
    if (!is_op(p, OP_EQUAL))
        return wrap1(p, N_EXPR_STMT, start, first);
    kids k = {0};
    push(p, &k, first);
    while (!p->failed && accept_op(p, OP_EQUAL))
        push(p, &k, assigned_value(p));
    return wrap(p, N_ASSIGN, start, k);
}

/* Keywords followed by optional expressions: return, raise, del, assert. */
static uint32_t keyword_statement(parser *p, int kind)
{
    uint32_t start = p->tok.start, end = p->tok.end;
    int kw = p->tok.kw;
    advance(p);
    kids k = {0};
    if (kind == N_DEL) {
        push(p, &k, star_exprs(p, false));
    } else if (!end_of_simple(p)) {
        push(p, &k, kind == N_RETURN ? star_exprs(p, true) : expr(p));
        if (kw == KW_RAISE && accept_kw(p, KW_FROM))
            push(p, &k, expr(p));
        if (kw == KW_ASSERT && accept_op(p, OP_COMMA))
            push(p, &k, expr(p));
    }
    return k.head ? wrap(p, kind, start, k) : node(p, kind, start, end, 0);
}

/* pass, break, continue, global, nonlocal, type X = ...: nothing the audit reads. */
static uint32_t other_statement(parser *p)
{
    uint32_t start = p->tok.start;
    while (!end_of_simple(p) && !p->failed)
        advance(p);
    return node(p, N_OTHER, start, p->tok.start, 0);
}

static bool type_alias_ahead(parser *p)
{
    return is_soft(p, "type") && peek(p)->kind == PT_NAME && !peek(p)->kw;
}

static uint32_t simple_statement(parser *p)
{
    if (p->tok.kind == PT_NAME)
        switch (p->tok.kw) {
        case KW_PASS:
        case KW_BREAK:
        case KW_CONTINUE:
        case KW_GLOBAL:
        case KW_NONLOCAL:
            return other_statement(p);
        case KW_RETURN:
            return keyword_statement(p, N_RETURN);
        case KW_RAISE:
            return keyword_statement(p, N_RAISE);
        case KW_DEL:
            return keyword_statement(p, N_DEL);
        case KW_ASSERT:
            return keyword_statement(p, N_ASSERT);
        case KW_IMPORT:
            return import_stmt(p);
        case KW_FROM:
            return from_import(p);
        default:
            if (type_alias_ahead(p))
                return other_statement(p);
        }
    return expression_statement(p);
}

/* simple (';' simple)* NEWLINE, each appended to OUT. */
static void simple_statements(parser *p, kids *out)
{
    do {
        if (p->tok.kind == PT_NEWLINE)
            break;
        push(p, out, simple_statement(p));
    } while (!p->failed && accept_op(p, OP_SEMI));
    if (!p->failed && p->tok.kind != PT_NEWLINE && p->tok.kind != PT_EOF)
        fail(p, "invalid syntax", p->tok.start);
    if (!p->failed && p->tok.kind == PT_NEWLINE)
        advance(p);
}

static uint32_t if_statement(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p); /* if / elif */
    kids k = {0};
    push(p, &k, named_expr(p));
    push(p, &k, block(p, BLOCK_BODY));
    if (is_kw(p, KW_ELIF))
        push(p, &k, if_statement(p));
    else if (accept_kw(p, KW_ELSE))
        push(p, &k, block(p, BLOCK_ELSE));
    return wrap(p, N_IF, start, k);
}

static uint32_t while_statement(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    push(p, &k, named_expr(p));
    push(p, &k, block(p, BLOCK_BODY));
    if (accept_kw(p, KW_ELSE))
        push(p, &k, block(p, BLOCK_ELSE));
    return wrap(p, N_WHILE, start, k);
}

static uint32_t for_statement(parser *p, uint32_t start, int flags)
{
    advance(p);
    kids k = {0};
    push(p, &k, star_exprs(p, false));
    if (!accept_kw(p, KW_IN))
        fail(p, "expected 'in'", p->tok.start);
    push(p, &k, star_exprs(p, true));
    push(p, &k, block(p, BLOCK_BODY));
    if (accept_kw(p, KW_ELSE))
        push(p, &k, block(p, BLOCK_ELSE));
    uint32_t n = wrap(p, N_FOR, start, k);
    if (n)
        N(p, n)->flags = (uint16_t)flags;
    return n;
}

static uint32_t try_statement(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    push(p, &k, block(p, BLOCK_BODY));
    while (!p->failed && is_kw(p, KW_EXCEPT)) {
        uint32_t hstart = p->tok.start;
        advance(p);
        int flags = accept_op(p, OP_STAR) ? FL_STAR : 0;
        kids h = {0};
        if (is_op(p, OP_COLON)) {
            push(p, &h, empty(p, p->tok.start));
            push(p, &h, empty(p, p->tok.start));
        } else {
            push(p, &h, star_exprs(p, true)); /* except A, B: (3.14) */
            push(p, &h, accept_kw(p, KW_AS) ? name(p) : empty(p, p->tok.start));
        }
        push(p, &h, block(p, BLOCK_BODY));
        uint32_t n = wrap(p, N_HANDLER, hstart, h);
        if (n)
            N(p, n)->flags = (uint16_t)flags;
        push(p, &k, n);
    }
    if (accept_kw(p, KW_ELSE))
        push(p, &k, block(p, BLOCK_ELSE));
    if (accept_kw(p, KW_FINALLY))
        push(p, &k, block(p, BLOCK_FINALLY));
    return wrap(p, N_TRY, start, k);
}

static uint32_t with_item(parser *p)
{
    uint32_t start = p->tok.start, e = expr(p);
    uint32_t target = accept_kw(p, KW_AS) ? star_or_named(p) : empty(p, p->tok.start);
    if (target && N(p, target)->kind == N_NAMED)
        fail(p, "invalid syntax", N(p, target)->start);
    return wrap2(p, N_WITHITEM, start, e, target);
}

/* with (a as b, c as d): the parenthesised form, tried first; false to try the plain one. */
static bool with_parenthesised(parser *p, kids *k)
{
    if (!accept_op(p, OP_LPAR))
        return false;
    do {
        if (is_op(p, OP_RPAR))
            break;
        push(p, k, with_item(p));
    } while (!p->failed && accept_op(p, OP_COMMA));
    return !p->failed && accept_op(p, OP_RPAR) && is_op(p, OP_COLON);
}

typedef struct saved {
    py_lexer lx;
    py_token tok, peek;
    bool has_peek, speculating;
    uint32_t n_nodes;
    size_t n_comments;
    int depth;
} saved;

static void save(parser *p, saved *s)
{
    *s = (saved){p->lx,          p->tok,        p->peek,          p->has_peek,
                 p->speculating, p->t->n_nodes, p->lx.n_comments, p->depth};
    p->speculating = true;
}

/* Go back to S, keeping what the lexer collected since (comments) and the node array. */
static void restore(parser *p, const saved *s)
{
    py_comment *c = p->lx.comments;
    size_t cap = p->lx.cap_comments;
    bool oom = p->lx.oom;
    p->lx = s->lx;
    p->lx.comments = c;
    p->lx.cap_comments = cap;
    p->lx.n_comments = s->n_comments;
    p->lx.oom = oom;
    p->tok = s->tok;
    p->peek = s->peek;
    p->has_peek = s->has_peek;
    p->t->n_nodes = s->n_nodes;
    p->depth = s->depth;
    p->failed = false;
}

static uint32_t with_statement(parser *p, uint32_t start, int flags)
{
    advance(p);
    kids k = {0};
    saved s;
    save(p, &s);
    bool parens = with_parenthesised(p, &k);
    p->speculating = s.speculating;
    if (!parens && !p->oom) {
        restore(p, &s);
        k = (kids){0};
        do
            push(p, &k, with_item(p));
        while (!p->failed && accept_op(p, OP_COMMA));
    }
    push(p, &k, block(p, BLOCK_BODY));
    uint32_t n = wrap(p, N_WITH, start, k);
    if (n)
        N(p, n)->flags = (uint16_t)flags;
    return n;
}

static uint32_t funcdef(parser *p, uint32_t start, uint32_t decorators, int flags)
{
    advance(p); /* def */
    kids k = {0};
    push(p, &k, decorators);
    push(p, &k, name(p));
    if (is_op(p, OP_LSQB))
        skip_brackets(p);
    if (!expect_op(p, OP_LPAR, "expected '('"))
        return 0;
    push(p, &k, params(p, OP_RPAR));
    expect_op(p, OP_RPAR, "expected ')'");
    if (accept_op(p, OP_RARROW))
        expr(p);
    push(p, &k, block(p, BLOCK_BODY));
    uint32_t n = wrap(p, N_FUNCDEF, start, k);
    if (n)
        N(p, n)->flags = (uint16_t)flags;
    return n;
}

static uint32_t classdef(parser *p, uint32_t start, uint32_t decorators)
{
    advance(p); /* class */
    kids k = {0};
    push(p, &k, decorators);
    push(p, &k, name(p));
    if (is_op(p, OP_LSQB))
        skip_brackets(p);
    uint32_t astart = p->tok.start;
    push(p, &k, accept_op(p, OP_LPAR) ? call_args(p, astart) : node(p, N_ARGS, astart, astart, 0));
    push(p, &k, block(p, BLOCK_BODY));
    return wrap(p, N_CLASSDEF, start, k);
}

static uint32_t decorated(parser *p)
{
    uint32_t start = p->tok.start;
    kids d = {0};
    while (!p->failed && accept_op(p, OP_AT)) {
        push(p, &d, named_expr(p));
        if (p->tok.kind != PT_NEWLINE)
            fail(p, "expected a newline after a decorator", p->tok.start);
        else
            advance(p);
    }
    uint32_t decs = node(p, N_DECORATORS, start, p->tok.start, d.head);
    if (is_kw(p, KW_CLASS))
        return classdef(p, start, decs);
    int flags = accept_kw(p, KW_ASYNC) ? FL_ASYNC : 0;
    if (is_kw(p, KW_DEF))
        return funcdef(p, start, decs, flags);
    fail(p, "expected 'def' or 'class' after a decorator", p->tok.start);
    return 0;
}

/* The pattern of a case clause, skipped: up to 'if' or ':' outside brackets. */
static void skip_pattern(parser *p)
{
    int depth = 0;
    while (!p->failed && p->tok.kind != PT_EOF && p->tok.kind != PT_NEWLINE) {
        if (depth == 0 && (is_kw(p, KW_IF) || is_op(p, OP_COLON)))
            return;
        if (is_op(p, OP_LPAR) || is_op(p, OP_LSQB) || is_op(p, OP_LBRACE))
            depth++;
        else if (is_op(p, OP_RPAR) || is_op(p, OP_RSQB) || is_op(p, OP_RBRACE))
            depth--;
        advance(p);
    }
}

/* match subject: NEWLINE INDENT case...: tried when a statement starts with "match". */
static uint32_t match_statement(parser *p)
{
    uint32_t start = p->tok.start;
    advance(p);
    kids k = {0};
    push(p, &k, star_exprs(p, true));
    if (!accept_op(p, OP_COLON) || p->tok.kind != PT_NEWLINE)
        return p->failed = true, 0;
    advance(p);
    if (p->tok.kind != PT_INDENT)
        return p->failed = true, 0;
    advance(p);
    if (!is_soft(p, "case"))
        return p->failed = true, 0;
    return wrap(p, N_MATCH, start, k); /* committed: the caller parses the cases */
}

static void case_clauses(parser *p, uint32_t match)
{
    kids k = {N(p, match)->kid, N(p, match)->kid};
    while (!p->failed && is_soft(p, "case")) {
        uint32_t cstart = p->tok.start;
        advance(p);
        skip_pattern(p);
        uint32_t guard = accept_kw(p, KW_IF) ? named_expr(p) : empty(p, p->tok.start);
        push(p, &k, wrap2(p, N_CASE, cstart, guard, block(p, BLOCK_BODY)));
    }
    if (!p->failed && p->tok.kind != PT_DEDENT)
        fail(p, "expected 'case'", p->tok.start);
    else if (!p->failed)
        advance(p);
    N(p, match)->end = p->tok.start;
}

static uint32_t compound(parser *p)
{
    uint32_t start = p->tok.start;
    switch (p->tok.kw) {
    case KW_IF:
        return if_statement(p);
    case KW_WHILE:
        return while_statement(p);
    case KW_FOR:
        return for_statement(p, start, 0);
    case KW_TRY:
        return try_statement(p);
    case KW_WITH:
        return with_statement(p, start, 0);
    case KW_DEF:
        return funcdef(p, start, node(p, N_DECORATORS, start, start, 0), 0);
    case KW_CLASS:
        return classdef(p, start, node(p, N_DECORATORS, start, start, 0));
    case KW_ASYNC:
        advance(p);
        if (is_kw(p, KW_DEF))
            return funcdef(p, start, node(p, N_DECORATORS, start, start, 0), FL_ASYNC);
        if (is_kw(p, KW_FOR))
            return for_statement(p, start, FL_ASYNC);
        if (is_kw(p, KW_WITH))
            return with_statement(p, start, FL_ASYNC);
        fail(p, "expected 'def', 'for' or 'with' after 'async'", p->tok.start);
        return 0;
    default:
        return 0;
    }
}

static bool is_compound(const parser *p)
{
    if (is_op(p, OP_AT))
        return true;
    if (p->tok.kind != PT_NAME)
        return false;
    switch (p->tok.kw) {
    case KW_IF:
    case KW_WHILE:
    case KW_FOR:
    case KW_TRY:
    case KW_WITH:
    case KW_DEF:
    case KW_CLASS:
    case KW_ASYNC:
        return true;
    default:
        return false;
    }
}

/* Skip to the start of the next statement after an error. Inside an unclosed bracket the
 * lexer would never end the line: it restarts at the next physical line instead. */
static void resync(parser *p)
{
    if (p->lx.depth > 0 && p->tok.kind != PT_EOF) {
        uint32_t at = p->tok.start;
        while (at < p->lx.len && p->t->src[at] != '\n')
            at++;
        p->lx.pos = at < p->lx.len ? at + 1 : at;
        p->lx.depth = 0;
        p->lx.line_start = true;
        p->lx.last_newline = true;
        p->has_peek = false;
        advance(p);
    }
    p->failed = false;
    while (p->tok.kind != PT_NEWLINE && p->tok.kind != PT_EOF && p->tok.kind != PT_INDENT &&
           p->tok.kind != PT_DEDENT) {
        advance(p);
        p->failed = false;
    }
    if (p->tok.kind == PT_NEWLINE)
        advance(p);
    p->lx.depth = 0;
    p->failed = false;
}

/* One statement (or several on one line) into OUT. */
static void statement(parser *p, kids *out)
{
    if (is_compound(p)) {
        push(p, out, is_op(p, OP_AT) ? decorated(p) : compound(p));
    } else if (is_soft(p, "match")) {
        saved s;
        save(p, &s);
        uint32_t m = match_statement(p);
        p->speculating = s.speculating;
        if (m && !p->failed) {
            push(p, out, m);
            case_clauses(p, m);
        } else if (!p->oom) {
            restore(p, &s);
            simple_statements(p, out);
        }
    } else {
        simple_statements(p, out);
    }
    if (p->failed && !p->oom)
        resync(p);
}

/* The statements of a block until its DEDENT (or the end of the file), into OUT. A stray
 * INDENT (after an error, or a real one) opens a nested run of statements kept in OUT too,
 * so code after a syntax error is still audited. */
static void statements(parser *p, kids *out, bool top)
{
    while (!p->oom && p->tok.kind != PT_EOF) {
        if (p->tok.kind == PT_DEDENT) {
            if (!top)
                return;
            advance(p);
            continue;
        }
        if (p->tok.kind == PT_INDENT) {
            fail(p, "unexpected indent", p->tok.start);
            p->failed = false;
            advance(p);
            if (!enter(p)) {
                p->failed = false;
                p->depth--;
                continue;
            }
            statements(p, out, false);
            p->depth--;
            if (p->tok.kind == PT_DEDENT)
                advance(p);
            continue;
        }
        if (p->tok.kind == PT_NEWLINE || p->tok.kind == PT_ERROR) {
            if (p->tok.kind == PT_ERROR)
                fail(p, p->lx.error ? p->lx.error : "invalid syntax", p->tok.start);
            resync(p);
            continue;
        }
        statement(p, out);
    }
}

/* ':' then either simple statements on the same line or NEWLINE INDENT statements DEDENT. */
static uint32_t block(parser *p, int flavour)
{
    uint32_t start = p->tok.start;
    kids k = {0};
    if (p->failed || !expect_op(p, OP_COLON, "expected ':'"))
        return 0;
    if (p->tok.kind != PT_NEWLINE) {
        simple_statements(p, &k);
    } else {
        advance(p);
        if (p->tok.kind != PT_INDENT) {
            fail(p, "expected an indented block", p->tok.start);
            return 0;
        }
        advance(p);
        if (!enter(p))
            return 0;
        statements(p, &k, false);
        p->depth--;
        if (p->tok.kind == PT_DEDENT)
            advance(p);
    }
    uint32_t n = node(p, N_BLOCK, start, k.tail ? N(p, k.tail)->end : start, k.head);
    if (n)
        N(p, n)->flags = (uint16_t)flavour;
    return n;
}

/* ---- the tree ---- */

static int build_lines(py_tree *t)
{
    size_t cap = 64;
    t->lines = malloc(cap * sizeof *t->lines);
    if (!t->lines)
        return -1;
    t->lines[t->n_lines++] = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        char c = t->src[i];
        if (c != '\n' && (c != '\r' || (i + 1 < t->len && t->src[i + 1] == '\n')))
            continue;
        uint32_t *nv = vec_grow(t->lines, &cap, t->n_lines, sizeof *nv);
        if (!nv)
            return -1;
        t->lines = nv;
        t->lines[t->n_lines++] = i + 1;
    }
    return 0;
}

int py_parse(py_tree *t, const char *src, uint32_t len)
{
    memset(t, 0, sizeof *t);
    t->src = src;
    t->len = len;
    if (build_lines(t) < 0)
        return -1;
    /* Typical code makes a node per 5 to 8 bytes: start there, grow by doubling. */
    t->cap_nodes = len / 6 + 16;
    t->nodes = malloc(t->cap_nodes * sizeof *t->nodes);
    if (!t->nodes)
        return -1;
    t->n_nodes = 1;
    t->nodes[0] = (py_node){.kind = N_EMPTY};
    parser p = {.t = t};
    py_lex_init(&p.lx, src, len);
    advance(&p);
    kids k = {0};
    statements(&p, &k, true);
    t->comments = p.lx.comments;
    t->n_comments = p.lx.n_comments;
    if (p.oom || p.lx.oom)
        return -1;
    t->root = node(&p, N_MODULE, 0, len, k.head);
    return t->root ? 0 : -1;
}

void py_tree_free(py_tree *t)
{
    free(t->nodes);
    free(t->lines);
    free(t->comments);
    memset(t, 0, sizeof *t);
}

void py_position(const py_tree *t, uint32_t off, int *line, int *col)
{
    uint32_t lo = 0, hi = t->n_lines;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    int c = 1;
    for (uint32_t i = t->lines[lo]; i < off && i < t->len; i++)
        c += ((unsigned char)t->src[i] & 0xC0) != 0x80; /* characters, not bytes */
    *line = (int)lo + 1;
    *col = c;
}

uint32_t py_kid(const py_tree *t, uint32_t n, unsigned i)
{
    uint32_t k = n ? t->nodes[n].kid : 0;
    while (k && i--)
        k = t->nodes[k].next;
    return k;
}

unsigned py_nkids(const py_tree *t, uint32_t n)
{
    unsigned c = 0;
    for (uint32_t k = n ? t->nodes[n].kid : 0; k; k = t->nodes[k].next)
        c++;
    return c;
}

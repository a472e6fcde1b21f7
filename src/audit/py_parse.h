/* py_parse: a recursive-descent parser for Python 3.14 into a compact syntax tree.
 * Permissive where the audit does not care (patterns, annotations, type parameters), exact
 * about calls, names, strings and scopes; the tree costs 20 bytes a node, in one array. */
#ifndef TESTFENCE_PY_PARSE_H
#define TESTFENCE_PY_PARSE_H

#include "py_lex.h"

#include <stdbool.h>
#include <stdint.h>

/* Node kinds. The comment gives each kind's children, in order; [x] is an N_EMPTY node when
 * absent, "..." a variable number. */
enum py_kind {
    N_EMPTY,
    /* statements */
    N_MODULE,      /* statement... */
    N_BLOCK,       /* statement...; flags: BLOCK_BODY, BLOCK_ELSE or BLOCK_FINALLY */
    N_EXPR_STMT,   /* expr */
    N_ASSIGN,      /* target..., value */
    N_ANNASSIGN,   /* target, annotation, [value] */
    N_AUGASSIGN,   /* target, value; op: the operator */
    N_RETURN,      /* [value] */
    N_RAISE,       /* [exception], [cause] */
    N_DEL,         /* target... */
    N_ASSERT,      /* test, [message] */
    N_OTHER,       /* pass, break, continue, global, nonlocal, type aliases: no children */
    N_IMPORT,      /* N_ALIAS... */
    N_FROM_IMPORT, /* [N_DOTTED module], N_ALIAS...; flags: the relative level; op 1: "*" */
    N_ALIAS,       /* N_DOTTED, [N_NAME as-name] */
    N_DOTTED,      /* N_NAME... */
    N_IF,          /* test, N_BLOCK, [N_BLOCK else, or N_IF for elif] */
    N_WHILE,       /* test, N_BLOCK, [N_BLOCK else] */
    N_FOR,         /* target, iterable, N_BLOCK, [N_BLOCK else]; flags FL_ASYNC */
    N_TRY,         /* N_BLOCK, N_HANDLER..., then N_BLOCK else and/or finally (by flags) */
    N_HANDLER,     /* [type], [N_NAME], N_BLOCK; flags FL_STAR for except* */
    N_WITH,        /* N_WITHITEM..., N_BLOCK; flags FL_ASYNC */
    N_WITHITEM,    /* expr, [target] */
    N_FUNCDEF,     /* N_DECORATORS, N_NAME, N_PARAMS, N_BLOCK; flags FL_ASYNC */
    N_CLASSDEF,    /* N_DECORATORS, N_NAME, N_ARGS (bases), N_BLOCK */
    N_DECORATORS,  /* expr... */
    N_PARAMS,      /* N_PARAM... */
    N_PARAM,       /* [N_NAME], [default]; flags: PARAM_* */
    N_MATCH,       /* subject, N_CASE... */
    N_CASE,        /* [guard], N_BLOCK (the pattern is not kept) */
    /* expressions */
    N_NAME,
    N_NUMBER,
    N_CONST,     /* None, True, False, ...; op: KW_NONE_, KW_TRUE, KW_FALSE or 0 for ... */
    N_STRING,    /* N_FIELD... (f- and t-strings); op: PS_* prefix flags */
    N_CONCAT,    /* N_STRING... (implicit concatenation) */
    N_FIELD,     /* expr: a replacement field of an f- or t-string */
    N_ATTR,      /* object, N_NAME */
    N_CALL,      /* function, N_ARGS */
    N_ARGS,      /* expr | N_STARRED | N_KWARG | N_DSTAR | N_COMP ... */
    N_KWARG,     /* N_NAME, value */
    N_STARRED,   /* value */
    N_DSTAR,     /* value */
    N_SUBSCRIPT, /* value, index */
    N_SLICE,     /* [lower], [upper], [step] */
    N_BINOP,     /* left, right; op */
    N_UNARY,     /* operand; op */
    N_BOOLOP,    /* value...; op: KW_AND or KW_OR */
    N_NOT,       /* operand */
    N_COMPARE,   /* left, right... */
    N_IFEXP,     /* body, test, orelse */
    N_LAMBDA,    /* N_PARAMS, body */
    N_NAMED,     /* N_NAME, value (:=) */
    N_TUPLE,     /* elt... */
    N_LIST,      /* elt... */
    N_SET,       /* elt... */
    N_DICT,      /* N_PAIR | N_DSTAR ... */
    N_PAIR,      /* key, value */
    N_COMP,      /* element (N_PAIR for dicts), N_COMPFOR...; flags: COMP_* */
    N_COMPFOR,   /* target, iterable, condition... */
    N_YIELD,     /* [value]; flags FL_FROM */
    N_AWAIT,     /* value */
    N_KIND_COUNT
};

enum { BLOCK_BODY, BLOCK_ELSE, BLOCK_FINALLY };
enum { FL_ASYNC = 1, FL_STAR = 2, FL_FROM = 4, FL_PARENS = 8 };
enum { PARAM_PLAIN, PARAM_STAR, PARAM_DSTAR, PARAM_MARKER };
enum { COMP_LIST, COMP_SET, COMP_GEN, COMP_DICT };

typedef struct py_node {
    uint8_t kind, op;
    uint16_t flags;
    uint32_t start, end; /* byte offsets of the source text */
    uint32_t kid, next;  /* first child, next sibling; 0 = none */
} py_node;

typedef struct py_tree {
    const char *src;
    uint32_t len;
    py_node *nodes; /* nodes[0] is unused: index 0 means "none" */
    uint32_t n_nodes;
    size_t cap_nodes;
    uint32_t *lines; /* byte offset of each line's start */
    uint32_t n_lines;
    py_comment *comments;
    size_t n_comments;
    uint32_t root;
    bool has_error;        /* the first syntax error: */
    uint32_t error_pos;    /* where */
    const char *error_msg; /* what (a static string) */
} py_tree;

/* Parse SRC[0..LEN) (UTF-8) into T. Syntax errors are recorded in T and parsing goes on at
 * the next statement; -1 only when out of memory. Free T with py_tree_free in any case. */
int py_parse(py_tree *t, const char *src, uint32_t len);
void py_tree_free(py_tree *t);

/* 1-based line and character column of byte offset OFF. */
void py_position(const py_tree *t, uint32_t off, int *line, int *col);

/* The I-th child of node N (0 when there is none), and the number of children. */
uint32_t py_kid(const py_tree *t, uint32_t n, unsigned i);
unsigned py_nkids(const py_tree *t, uint32_t n);

#endif

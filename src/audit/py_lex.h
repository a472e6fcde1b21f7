/* py_lex: the Python tokenizer of the audit (the lexical grammar of Python 3.14).
 * Names, numbers, whole string literals (f- and t-strings included), operators, NEWLINE,
 * INDENT and DEDENT, over UTF-8 source; the parser (py_parse) reads its tokens. */
#ifndef TESTFENCE_PY_LEX_H
#define TESTFENCE_PY_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum py_tok {
    PT_EOF,
    PT_NEWLINE,
    PT_INDENT,
    PT_DEDENT,
    PT_NAME,
    PT_NUMBER,
    PT_STRING,
    PT_OP,
    PT_ERROR
};

/* Operators and delimiters. */
enum py_op {
    OP_NONE,
    OP_LPAR,
    OP_RPAR,
    OP_LSQB,
    OP_RSQB,
    OP_LBRACE,
    OP_RBRACE,
    OP_COLON,
    OP_COMMA,
    OP_SEMI,
    OP_PLUS,
    OP_MINUS,
    OP_STAR,
    OP_SLASH,
    OP_VBAR,
    OP_AMPER,
    OP_LESS,
    OP_GREATER,
    OP_EQUAL,
    OP_DOT,
    OP_PERCENT,
    OP_EQEQUAL,
    OP_NOTEQUAL,
    OP_LESSEQUAL,
    OP_GREATEREQUAL,
    OP_TILDE,
    OP_CIRCUMFLEX,
    OP_LSHIFT,
    OP_RSHIFT,
    OP_DSTAR,
    OP_DSLASH,
    OP_AT,
    OP_RARROW,
    OP_ELLIPSIS,
    OP_COLONEQ,
    OP_BANG,
    /* augmented assignment: OP_AUG_FIRST..OP_AUG_LAST */
    OP_PLUSEQ,
    OP_MINUSEQ,
    OP_STAREQ,
    OP_SLASHEQ,
    OP_PERCENTEQ,
    OP_AMPEREQ,
    OP_VBAREQ,
    OP_CIRCUMFLEXEQ,
    OP_LSHIFTEQ,
    OP_RSHIFTEQ,
    OP_DSTAREQ,
    OP_DSLASHEQ,
    OP_ATEQ,
    OP_COUNT
};
#define OP_AUG_FIRST OP_PLUSEQ
#define OP_AUG_LAST OP_ATEQ

/* Keywords (hard ones; match/case/type/_ are soft and stay names). */
enum py_kw {
    KW_NONE,
    KW_FALSE,
    KW_NONE_,
    KW_TRUE,
    KW_AND,
    KW_AS,
    KW_ASSERT,
    KW_ASYNC,
    KW_AWAIT,
    KW_BREAK,
    KW_CLASS,
    KW_CONTINUE,
    KW_DEF,
    KW_DEL,
    KW_ELIF,
    KW_ELSE,
    KW_EXCEPT,
    KW_FINALLY,
    KW_FOR,
    KW_FROM,
    KW_GLOBAL,
    KW_IF,
    KW_IMPORT,
    KW_IN,
    KW_IS,
    KW_LAMBDA,
    KW_NONLOCAL,
    KW_NOT,
    KW_OR,
    KW_PASS,
    KW_RAISE,
    KW_RETURN,
    KW_TRY,
    KW_WHILE,
    KW_WITH,
    KW_YIELD
};

/* String prefix flags of a PT_STRING token. */
enum { PS_RAW = 1, PS_BYTES = 2, PS_FMT = 4, PS_TEMPLATE = 8 };

typedef struct py_token {
    uint8_t kind, op, kw, str; /* str: PS_* flags of a string */
    uint32_t start, end;       /* byte offsets; a string spans its prefix and quotes */
} py_token;

/* A comment the audit reads (suppressions): only those naming testfence or holding "noqa"
 * are kept. */
typedef struct py_comment {
    uint32_t start, end;
    bool own_line; /* nothing but whitespace before it on its line */
} py_comment;

#define PY_MAX_INDENT 100

typedef struct py_lexer {
    const char *src;
    uint32_t len, pos;
    int depth; /* open brackets: newlines inside them are not tokens */
    int indents[PY_MAX_INDENT];
    int n_indents, pending_dedents;
    bool line_start, any_token, last_newline;
    const char *error; /* the first lexical error, NULL when none */
    uint32_t error_pos;
    bool collect_comments; /* false for an f-string field's lexer */
    py_comment *comments;  /* the caller frees them (py_tree takes them over) */
    size_t n_comments, cap_comments;
    bool oom;
} py_lexer;

/* Start lexing SRC[0..LEN). */
void py_lex_init(py_lexer *lx, const char *src, uint32_t len);
/* Lex SRC[START..END) as the inside of brackets (an f-string field's expression). */
void py_lex_init_range(py_lexer *lx, const char *src, uint32_t start, uint32_t end);
/* The next token. After PT_EOF, PT_EOF again. */
py_token py_lex_next(py_lexer *lx);

/* The expression ranges of an f- or t-string's replacement fields (including those nested
 * in format specs), in order. Calls FN(CTX, start, end) for each; returns the count. */
int py_fstring_fields(const char *src, const py_token *tok,
                      void (*fn)(void *ctx, uint32_t start, uint32_t end), void *ctx);

/* Where the quotes of string token TOK start and its body lies. */
void py_string_body(const char *src, const py_token *tok, uint32_t *body, uint32_t *body_end);

#endif

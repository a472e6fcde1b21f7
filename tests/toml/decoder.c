/* decoder: the toml-test "decoder" interface to src/toml/toml.c, for the conformance runner.
 * Reads TOML (stdin or FILE), prints toml-test's tagged JSON; exits 1 on invalid TOML. */
#include "toml/toml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_json_string(const char *s, size_t len)
{
    putchar('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void put_datetime(const toml_value *v)
{
    const toml_datetime *d = toml_datetime_of(v);
    toml_type t = toml_type_of(v);
    if (t != TOML_TIME_LOCAL)
        printf("%04d-%02d-%02d", d->year, d->month, d->day);
    if (t == TOML_DATETIME || t == TOML_DATETIME_LOCAL)
        putchar('T');
    if (t != TOML_DATE_LOCAL) {
        printf("%02d:%02d:%02d", d->hour, d->minute, d->second);
        if (d->nanosecond) {
            char frac[16];
            snprintf(frac, sizeof frac, "%09d", d->nanosecond);
            for (size_t n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
                frac[n - 1] = 0;
            printf(".%s", frac);
        }
    }
    if (t == TOML_DATETIME) {
        int off = d->offset_minutes, a = off < 0 ? -off : off;
        if (off == 0)
            putchar('Z');
        else
            printf("%c%02d:%02d", off < 0 ? '-' : '+', a / 60, a % 60);
    }
}

static void put_scalar(const toml_value *v)
{
    toml_type t = toml_type_of(v);
    static const char *const tags[] = {
        [TOML_STRING] = "string",         [TOML_INTEGER] = "integer",
        [TOML_FLOAT] = "float",           [TOML_BOOL] = "bool",
        [TOML_DATETIME] = "datetime",     [TOML_DATETIME_LOCAL] = "datetime-local",
        [TOML_DATE_LOCAL] = "date-local", [TOML_TIME_LOCAL] = "time-local",
    };
    printf("{\"type\":\"%s\",\"value\":", tags[t]);
    size_t len;
    const char *s = toml_string(v, &len);
    double f = toml_float(v);
    if (t == TOML_STRING)
        put_json_string(s, len);
    else if (t == TOML_INTEGER)
        printf("\"%lld\"", (long long)toml_int(v));
    else if (t == TOML_FLOAT && isnan(f))
        printf("\"nan\"");
    else if (t == TOML_FLOAT && isinf(f))
        printf("\"%sinf\"", f < 0 ? "-" : "");
    else if (t == TOML_FLOAT)
        printf("\"%.17g\"", f);
    else if (t == TOML_BOOL)
        printf("\"%s\"", toml_bool(v) ? "true" : "false");
    else {
        putchar('"');
        put_datetime(v);
        putchar('"');
    }
    putchar('}');
}

/* Recursion is safe: the parser bounds nesting at TOML_MAX_DEPTH. */
static void put_value(const toml_value *v)
{
    if (toml_type_of(v) == TOML_TABLE) {
        putchar('{');
        for (size_t i = 0; i < toml_table_len(v); i++) {
            const toml_key *k = toml_table_key(v, i);
            if (i)
                putchar(',');
            put_json_string(k->str, k->len);
            putchar(':');
            put_value(toml_table_value(v, i));
        }
        putchar('}');
    } else if (toml_type_of(v) == TOML_ARRAY) {
        putchar('[');
        for (size_t i = 0; i < toml_array_len(v); i++) {
            if (i)
                putchar(',');
            put_value(toml_array_at(v, i));
        }
        putchar(']');
    } else {
        put_scalar(v);
    }
}

/* Standard input read with stdio, not as /dev/stdin, which Windows has not (the decoder
 * runs under wine for tests/platforms/); named /dev/stdin in messages all the same. */
static int parse_stdin(unsigned flags, toml_doc **doc, tf_err *err)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, stdin)) > 0;) {
        len += n;
        if (len == cap) {
            char *more = realloc(buf, cap *= 2);
            if (!more)
                free(buf);
            buf = more;
        }
    }
    if (!buf || ferror(stdin)) {
        free(buf);
        return tf_errf(err, "/dev/stdin: cannot read standard input");
    }
    int r = toml_parse("/dev/stdin", buf, len, flags, doc, err);
    free(buf);
    return r;
}

int main(int argc, char **argv)
{
    unsigned flags = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--toml=1.0") == 0)
            flags |= TOML_STRICT_1_0;
        else if (strcmp(argv[i], "--toml=1.1") == 0)
            flags &= ~(unsigned)TOML_STRICT_1_0;
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fprintf(stderr, "usage: decoder [--toml=1.0|--toml=1.1] [FILE] < input.toml\n");
            return 2;
        }
    }
    tf_err err = {0};
    toml_doc *doc;
    int r = file ? toml_parse_file(file, flags, &doc, &err) : parse_stdin(flags, &doc, &err);
    if (r < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    put_value(toml_root(doc));
    putchar('\n');
    toml_free(doc);
    return 0;
}

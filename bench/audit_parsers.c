/* audit_parsers: parse Python files with the audit's own parser or with tree-sitter-python,
 * for bench/audit_parsers.sh (speed, memory, files rejected). Not part of the product. */
#include "audit/py_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_TREE_SITTER
#include <tree_sitter/api.h>
const TSLanguage *tree_sitter_python(void);
#endif

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Parse SRC; true when the parser found no syntax error. */
static bool parse_ours(const char *src, size_t len)
{
    py_tree t;
    bool ok = py_parse(&t, src, (uint32_t)len) == 0 && !t.has_error;
    py_tree_free(&t);
    return ok;
}

#ifdef HAVE_TREE_SITTER
static bool parse_ts(TSParser *p, const char *src, size_t len)
{
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    bool ok = t && !ts_node_has_error(ts_tree_root_node(t));
    ts_tree_delete(t);
    return ok;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "ours") && strcmp(argv[1], "tree-sitter"))) {
        fprintf(stderr, "usage: audit_parsers ours|tree-sitter FILE...\n");
        return 2;
    }
    bool ts = !strcmp(argv[1], "tree-sitter");
#ifdef HAVE_TREE_SITTER
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, tree_sitter_python());
#else
    if (ts) {
        fprintf(stderr, "audit_parsers: built without tree-sitter (scripts/deps.sh bench)\n");
        return 77;
    }
#endif
    size_t bytes = 0, files = 0, rejected = 0;
    double secs = 0;
    for (int i = 2; i < argc; i++) {
        size_t len;
        char *src = slurp(argv[i], &len);
        if (!src)
            continue;
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
#ifdef HAVE_TREE_SITTER
        bool ok = ts ? parse_ts(p, src, len) : parse_ours(src, len);
#else
        bool ok = parse_ours(src, len);
#endif
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        secs += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (!ok) {
            rejected++;
            if (getenv("SHOW_REJECTED"))
                printf("rejected: %s\n", argv[i]);
        }
        bytes += len;
        files++;
        free(src);
    }
#ifdef HAVE_TREE_SITTER
    ts_parser_delete(p);
#endif
    printf("%-12s %zu files, %.1f MB, %.3f cpu-s, %.1f MB/s, %zu with a syntax error\n", argv[1],
           files, (double)bytes / 1e6, secs, (double)bytes / 1e6 / secs, rejected);
    return 0;
}

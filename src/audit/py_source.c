#include "py_source.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line: "[ \t\f]*#.*coding[:=][ \t]*([-\w.]+)" (PEP 263). */
static int line_cookie(const char *line, size_t len, char *name, size_t namelen)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f'))
        i++;
    if (i == len || line[i] != '#')
        return 0;
    for (; i + 7 < len; i++) {
        if (memcmp(line + i, "coding", 6) || (line[i + 6] != ':' && line[i + 6] != '='))
            continue;
        size_t j = i + 7, n = 0;
        while (j < len && (line[j] == ' ' || line[j] == '\t'))
            j++;
        while (j < len && n + 1 < namelen &&
               (line[j] == '-' || line[j] == '_' || line[j] == '.' ||
                (line[j] >= '0' && line[j] <= '9') ||
                ((line[j] | 0x20) >= 'a' && (line[j] | 0x20) <= 'z')))
            name[n++] = (char)(line[j] >= 'A' && line[j] <= 'Z' ? line[j] | 0x20 : line[j]), j++;
        name[n] = '\0';
        return n > 0;
    }
    return 0;
}

int py_source_cookie(const char *src, size_t len, char *name, size_t namelen)
{
    size_t start = 0;
    for (int line = 0; line < 2 && start < len; line++) {
        const char *nl = memchr(src + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - src) : len;
        if (line_cookie(src + start, end - start, name, namelen))
            return 1;
        /* the second line counts only when the first is blank or a comment */
        size_t k = start;
        while (k < end && (src[k] == ' ' || src[k] == '\t' || src[k] == '\f' || src[k] == '\r'))
            k++;
        if (k < end && src[k] != '#')
            return 0;
        start = end + 1;
    }
    return 0;
}

static int is_utf8_name(const char *n)
{
    return !strcmp(n, "utf-8") || !strcmp(n, "utf8") || !strncmp(n, "utf-8-", 6) ||
           !strncmp(n, "utf_8", 5);
}

/* Python's names for encodings iconv spells otherwise. */
static const char *iconv_name(const char *n)
{
    if (!strcmp(n, "latin-1") || !strcmp(n, "latin1") || !strncmp(n, "iso-latin-1", 11) ||
        !strncmp(n, "iso-8859-1-", 11))
        return "ISO-8859-1";
    if (!strcmp(n, "ascii") || !strcmp(n, "us-ascii"))
        return "ASCII";
    return n;
}

int py_source_utf8(const char *src, size_t len, const char **out, size_t *outlen, char **owned,
                   char *why, size_t whylen)
{
    char name[64];
    *out = src;
    *outlen = len;
    *owned = NULL;
    if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
        return 0; /* a BOM means UTF-8 whatever a cookie says; the lexer skips it */
    if (!py_source_cookie(src, len, name, sizeof name) || is_utf8_name(name))
        return 0;
    iconv_t cd = iconv_open("UTF-8", iconv_name(name));
    if (cd == (iconv_t)-1) {
        snprintf(why, whylen, "unknown encoding '%s' in the coding cookie", name);
        return -1;
    }
    size_t cap = len * 4 + 16; /* every encoding Python allows needs at most 4 bytes a char */
    char *buf = malloc(cap);
    if (!buf) {
        iconv_close(cd);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char *in = (char *)(uintptr_t)src, *o = buf; /* iconv's input is never written */
    size_t inleft = len, outleft = cap;
    size_t r = iconv(cd, &in, &inleft, &o, &outleft);
    iconv_close(cd);
    if (r == (size_t)-1) {
        int e = errno;
        free(buf);
        snprintf(why, whylen, "bytes at offset %zu are not %s (%s)", len - inleft, name,
                 strerror(e));
        return -1;
    }
    *out = *owned = buf;
    *outlen = cap - outleft;
    return 0;
}

/* iconv: include/iconv.h on Windows: a whole buffer converted through UTF-16 with
 * MultiByteToWideChar, invalid bytes refused (EILSEQ) as glibc's iconv refuses them. */
#include <iconv.h> /* include/iconv.h */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <windows.h>

struct tf_win_iconv {
    unsigned codepage;
};

/* Python's encoding names (lower case, '-' or '_') and the code page of each. */
static const struct {
    const char *name;
    unsigned cp;
} pages[] = {
    {"ISO-8859-1", 28591}, {"latin-1", 28591},    {"latin1", 28591},     {"ASCII", 20127},
    {"iso-8859-2", 28592}, {"iso-8859-5", 28595}, {"iso-8859-7", 28597}, {"iso-8859-15", 28605},
    {"cp1250", 1250},      {"cp1251", 1251},      {"cp1252", 1252},      {"windows-1252", 1252},
    {"cp437", 437},        {"cp850", 850},        {"koi8-r", 20866},     {"shift_jis", 932},
    {"cp932", 932},        {"euc-jp", 20932},     {"gbk", 936},          {"gb2312", 936},
    {"big5", 950},         {"euc-kr", 51949},     {"utf-16", 1200},
};

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (char)tolower((unsigned char)*a), y = (char)tolower((unsigned char)*b);
        if (x == '_')
            x = '-';
        if (y == '_')
            y = '-';
        if (x != y)
            return false;
    }
    return !*a && !*b;
}

iconv_t iconv_open(const char *to, const char *from)
{
    if (!same_name(to, "UTF-8")) {
        errno = EINVAL;
        return (iconv_t)-1;
    }
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        if (!same_name(from, pages[i].name))
            continue;
        iconv_t cd = malloc(sizeof *cd);
        if (!cd)
            return (iconv_t)-1;
        cd->codepage = pages[i].cp;
        return cd;
    }
    errno = EINVAL;
    return (iconv_t)-1;
}

size_t iconv(iconv_t cd, char **in, size_t *inleft, char **out, size_t *outleft)
{
    if (*inleft > 0x3fffffff) {
        errno = E2BIG;
        return (size_t)-1;
    }
    int n = (int)*inleft;
    int wn = n ? MultiByteToWideChar(cd->codepage, MB_ERR_INVALID_CHARS, *in, n, NULL, 0) : 0;
    if (n && wn <= 0) {
        errno = EILSEQ;
        return (size_t)-1;
    }
    wchar_t *w = malloc(((size_t)wn + 1) * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return (size_t)-1;
    }
    if (n)
        MultiByteToWideChar(cd->codepage, MB_ERR_INVALID_CHARS, *in, n, w, wn);
    int on = wn ? WideCharToMultiByte(CP_UTF8, 0, w, wn, NULL, 0, NULL, NULL) : 0;
    if (wn && (on <= 0 || (size_t)on > *outleft)) {
        free(w);
        errno = on <= 0 ? EILSEQ : E2BIG;
        return (size_t)-1;
    }
    if (wn)
        WideCharToMultiByte(CP_UTF8, 0, w, wn, *out, on, NULL, NULL);
    free(w);
    *in += n;
    *inleft = 0;
    *out += on;
    *outleft -= (size_t)on;
    return 0;
}

int iconv_close(iconv_t cd)
{
    free(cd);
    return 0;
}

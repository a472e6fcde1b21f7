/* iconv: the part of iconv(3) py_source.c uses (to UTF-8 from a coding cookie's encoding),
 * for the Windows build, where mingw has no iconv; the code pages come from Windows. */
#ifndef TESTFENCE_WINDOWS_ICONV_H
#define TESTFENCE_WINDOWS_ICONV_H

#include <stddef.h>

typedef struct tf_win_iconv *iconv_t;

/* Only TO "UTF-8" is supported; FROM is an encoding name Windows has a code page for. */
iconv_t iconv_open(const char *to, const char *from);
size_t iconv(iconv_t cd, char **in, size_t *inleft, char **out, size_t *outleft);
int iconv_close(iconv_t cd);

#endif

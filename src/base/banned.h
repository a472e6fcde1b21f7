/* banned: the C library calls that write through a pointer without knowing where its buffer
 * ends, made compile errors everywhere in src/ (as git does); use snprintf, or memcpy after a
 * length check. Force-included by the top CMakeLists.txt for src/ only. */
#ifndef TESTFENCE_BANNED_H
#define TESTFENCE_BANNED_H

/* The system headers first: their declarations must not meet the macros below. */
#include <stdio.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_banned_in_testfence

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)

#endif

/* text: the one UTF-8 reader and writer, hex digit reader, JSON string escaper, URI encoder
 * and GitHub workflow-command escaper of testfence; pure functions of their arguments. */
#ifndef TESTFENCE_TEXT_H
#define TESTFENCE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The length (1 to 4) of the valid UTF-8 sequence at S, of which N bytes may be read, or
 * 0 when it is not one: malformed, overlong, a surrogate or beyond U+10FFFF. A string
 * ended by a NUL may pass SIZE_MAX: no byte after a NUL is read (NUL continues nothing). */
size_t tf_utf8_len(const unsigned char *s, size_t n);

/* CP encoded as UTF-8 into OUT; returns its length (1 to 4), or 0 (nothing written) when
 * CP is beyond U+10FFFF. Surrogates are encoded as they are: a caller that must not make
 * them checks first. */
size_t tf_utf8_put(char out[4], unsigned long cp);

/* The value (0 to 15) of the hex digit C, or -1 when it is not one (EOF included). */
int tf_hex_digit(int c);

/* The DIGITS hex digits at S, of which AVAIL bytes may be read, into *V: 0, or -1 when
 * fewer are there or one is not a hex digit (*V is then unspecified). */
int tf_hex_read(const char *s, size_t avail, size_t digits, unsigned long *v);

/* S as a JSON string (quotes included) into OUT: '"', '\\', \n, \r and \t as two
 * characters, other C0 controls and DEL as \u00XX, invalid UTF-8 (tf_utf8_len) one byte
 * at a time as \ufffd. At most CAP - 1 bytes (CAP >= 3), never half an escape; OUT is
 * always terminated. Returns the length written; *CUT is set when S did not fit whole. */
size_t tf_json_escape(char *out, size_t cap, const char *s, bool *cut);

/* S as a JSON string (tf_json_escape's) to OUT, whole whatever its length: escaped a
 * piece at a time, with the bytes of escaping it at once; NULL as null. */
void tf_json_write(FILE *out, const char *s);

/* PREFIX, then PATH as a URI reference (RFC 3986), both in JSON quotes, to OUT: every byte
 * but the unreserved ones and '/' percent-encoded (PREFIX is written as it is). */
void tf_uri_write(FILE *out, const char *prefix, const char *path);

/* The absolute PATH as a file: URI in JSON quotes to OUT: "file:///tmp/x" for "/tmp/x"; a
 * Windows path with a drive ("C:/x", testfence.exe's form) is "file:///C:/x" (RFC 8089),
 * its colon kept. */
void tf_file_uri_write(FILE *out, const char *path);

/* PATH starts with a drive ("C:/"): absolute on Windows. */
bool tf_drive_path(const char *path);

/* S as a GitHub workflow command's data to F: %, CR and LF as %25, %0D, %0A; in a
 * PROPERTY (file=, title=) also ':' and ',' as %3A, %2C. */
void tf_gh_escape(FILE *f, const char *s, bool property);

#endif

/* winspawn: see winspawn.h. The command is created suspended and resumed only once it is in
 * the job, so nothing it starts can run outside the job even for an instant. */
#include "winspawn.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* S (ANSI code page) as a new wide string. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_ACP, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w && MultiByteToWideChar(CP_ACP, 0, s, -1, w, n) != n) {
        free(w);
        w = NULL;
    }
    return w;
}

/* ARG, quoted, at OUT (room enough: 2 * its length + 3); the new end. */
static wchar_t *quote(wchar_t *out, const wchar_t *arg)
{
    if (*arg && !wcspbrk(arg, L" \t\n\v\"")) {
        wcscpy(out, arg);
        return out + wcslen(arg);
    }
    *out++ = L'"';
    for (const wchar_t *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            p++;
            slashes++;
        }
        /* Backslashes before a quote or the closing quote are doubled; others are as is. */
        size_t times = (*p == L'"' || *p == 0) ? 2 * slashes : slashes;
        for (size_t i = 0; i < times; i++)
            *out++ = L'\\';
        if (*p == 0)
            break;
        if (*p == L'"')
            *out++ = L'\\';
        *out++ = *p;
    }
    *out++ = L'"';
    return out;
}

wchar_t *winspawn_cmdline(char *const *argv)
{
    size_t n = 0, room = 1;
    for (; argv[n]; n++)
        room += 2 * (strlen(argv[n]) + 2);
    wchar_t *line = malloc(room * sizeof *line), *end = line;
    for (size_t i = 0; line && i < n; i++) {
        wchar_t *w = wide(argv[i]);
        if (!w) {
            free(line);
            return NULL;
        }
        if (i > 0)
            *end++ = L' ';
        end = quote(end, w);
        free(w);
    }
    if (line)
        *end = 0;
    return line;
}

wchar_t *winspawn_envblock(char *const *envp)
{
    size_t room = 2, used = 0;
    for (char *const *e = envp; *e; e++)
        room += strlen(*e) + 1; /* a character takes one wide one at most */
    wchar_t *block = malloc(room * sizeof *block);
    for (char *const *e = envp; block && *e; e++) {
        int n = MultiByteToWideChar(CP_ACP, 0, *e, -1, block + used, (int)(room - used));
        if (n <= 0) {
            free(block);
            return NULL;
        }
        used += (size_t)n;
    }
    if (block) {
        block[used++] = 0;
        block[used] = 0; /* an empty environment is two NULs */
    }
    return block;
}

/* The status run gives a command that could not be started with error E (Linux's: 127 not
 * found, 126 cannot be executed), said in one line. */
static int start_failed(const char *cmd, DWORD e)
{
    bool missing = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
    fprintf(stderr, "testfence: %s: %s (error %lu)\n", cmd,
            missing ? "command not found" : "cannot be executed", e);
    return missing ? 127 : 126;
}

/* Ctrl+C and Ctrl+Break reach every process of the console: the command has them; testfence
 * stays to take the fence down when the command ends. */
static BOOL WINAPI keep_going(DWORD type)
{
    return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}

/* The command's standard handles are testfence's own, made inheritable (a pipe from a shell
 * may not be), and named in SI so the command gets exactly these. */
static void std_handles(STARTUPINFOW *si)
{
    HANDLE *to[3] = {&si->hStdInput, &si->hStdOutput, &si->hStdError};
    const DWORD which[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
    for (int i = 0; i < 3; i++) {
        *to[i] = GetStdHandle(which[i]);
        if (*to[i] && *to[i] != INVALID_HANDLE_VALUE)
            SetHandleInformation(*to[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    }
    si->dwFlags |= STARTF_USESTDHANDLES;
}

static int wait_for(PROCESS_INFORMATION *pi, int *status)
{
    DWORD code = 1;
    ResumeThread(pi->hThread);
    WaitForSingleObject(pi->hProcess, INFINITE);
    GetExitCodeProcess(pi->hProcess, &code);
    *status = (int)code;
    CloseHandle(pi->hThread);
    CloseHandle(pi->hProcess);
    return 0;
}

int winspawn_run(HANDLE token, HANDLE job, char *const *argv, char *const *envp, int *status,
                 tf_err *err)
{
    wchar_t *line = winspawn_cmdline(argv), *env = winspawn_envblock(envp);
    STARTUPINFOW si = {.cb = sizeof si};
    PROCESS_INFORMATION pi = {0};
    int rc = 0;
    std_handles(&si);
    if (!line || !env)
        rc = tf_errf(err, "cannot convert the command or its environment to UTF-16");
    else if (!CreateProcessAsUserW(token, NULL, line, NULL, NULL, TRUE,
                                   CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT, env, NULL, &si,
                                   &pi))
        *status = start_failed(argv[0], GetLastError());
    else if (!AssignProcessToJobObject(job, pi.hProcess)) {
        rc = tf_errf(err, "cannot put the command in the Job Object (error %lu); not run",
                     GetLastError());
        TerminateProcess(pi.hProcess, 1);
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
    } else {
        SetConsoleCtrlHandler(keep_going, TRUE);
        rc = wait_for(&pi, status);
        SetConsoleCtrlHandler(keep_going, FALSE);
    }
    free(line);
    free(env);
    return rc;
}

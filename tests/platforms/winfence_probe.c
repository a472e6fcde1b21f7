/* winfence_probe: what a command inside `testfence.exe run` sees of Windows' fence, printed
 * as NAME=VALUE lines for tests/platforms/windows_run.bats (under wine): its token
 * (restricting SIDs, privileges), its job (limits, breakaway), a path's ACEs, a write, and a
 * record in the run's log as the plugin's python backend makes one (libtestfence.dll).
 * usage: winfence_probe token | job | acl PATH... | write PATH | args ARG... | env NAME...
 *        | spawn-sleeper | breakaway | addace PATH SID | alive PID | record PATH | sleep */
#include "testfence.h"

#include <aclapi.h>
#include <errno.h>
#include <stdbool.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static void print_sid(const char *name, PSID sid)
{
    char *s = NULL;
    if (ConvertSidToStringSidA(sid, &s)) {
        printf("%s=%s\n", name, s);
        LocalFree(s);
    }
}

static int token(void)
{
    HANDLE t;
    DWORD len = 0;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &t))
        return printf("token_error=%lu\n", GetLastError()), 1;
    printf("restricted=%d\n", IsTokenRestricted(t) ? 1 : 0);
    GetTokenInformation(t, TokenRestrictedSids, NULL, 0, &len);
    TOKEN_GROUPS *g = len ? malloc(len) : NULL;
    if (g && GetTokenInformation(t, TokenRestrictedSids, g, len, &len))
        for (DWORD i = 0; i < g->GroupCount; i++)
            print_sid("restricting", g->Groups[i].Sid);
    else
        printf("restricting_error=%lu\n", GetLastError());
    free(g);
    len = 0;
    GetTokenInformation(t, TokenPrivileges, NULL, 0, &len);
    TOKEN_PRIVILEGES *p = len ? malloc(len) : NULL;
    if (p && GetTokenInformation(t, TokenPrivileges, p, len, &len))
        for (DWORD i = 0; i < p->PrivilegeCount; i++) {
            char name[128];
            DWORD n = sizeof name;
            if (LookupPrivilegeNameA(NULL, &p->Privileges[i].Luid, name, &n))
                printf("privilege=%s\n", name);
        }
    free(p);
    CloseHandle(t);
    return 0;
}

/* The restricting SIDs and privileges of TOKEN, and whether it is restricted. */
static void describe_token(HANDLE t)
{
    DWORD len = 0;
    printf("restricted=%d\n", IsTokenRestricted(t) ? 1 : 0);
    GetTokenInformation(t, TokenRestrictedSids, NULL, 0, &len);
    TOKEN_GROUPS *g = len ? malloc(len) : NULL;
    if (g && GetTokenInformation(t, TokenRestrictedSids, g, len, &len))
        for (DWORD i = 0; i < g->GroupCount; i++)
            print_sid("restricting", g->Groups[i].Sid);
    else
        printf("restricting_error=%lu\n", GetLastError());
    free(g);
    len = 0;
    GetTokenInformation(t, TokenPrivileges, NULL, 0, &len);
    TOKEN_PRIVILEGES *p = len ? malloc(len) : NULL;
    if (p && GetTokenInformation(t, TokenPrivileges, p, len, &len))
        printf("privileges=%lu\n", p->PrivilegeCount);
    free(p);
}

/* As winfence.c makes the command's token, here in this process: what the system keeps of
 * it (wine: token creation without CreateProcessAsUser's use of it). */
static int mktoken(void)
{
    HANDLE t, rt;
    SID_IDENTIFIER_AUTHORITY rm = {SECURITY_RESOURCE_MANAGER_AUTHORITY};
    PSID sid;
    OpenProcessToken(GetCurrentProcess(), TOKEN_ALL_ACCESS, &t);
    AllocateAndInitializeSid(&rm, 4, 0x74666e63u, 1, 2, 3, 0, 0, 0, 0, &sid);
    SID_AND_ATTRIBUTES r = {.Sid = sid};
    if (!CreateRestrictedToken(t, DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED, 0, NULL, 0, NULL, 1,
                               &r, &rt))
        return printf("mktoken_error=%lu\n", GetLastError()), 1;
    printf("mktoken=ok\n");
    describe_token(rt);
    CloseHandle(rt);
    CloseHandle(t);
    FreeSid(sid);
    return 0;
}

static int job(void)
{
    BOOL in = FALSE;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
    IsProcessInJob(GetCurrentProcess(), NULL, &in);
    printf("in_job=%d\n", in ? 1 : 0);
    if (QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &li, sizeof li, NULL)) {
        DWORD f = li.BasicLimitInformation.LimitFlags;
        printf("kill_on_close=%d\n", (f & JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) ? 1 : 0);
        printf("breakaway_ok=%d\n",
               (f & (JOB_OBJECT_LIMIT_BREAKAWAY_OK | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK)) ? 1
                                                                                            : 0);
    } else {
        printf("job_query_error=%lu\n", GetLastError());
    }
    return 0;
}

/* PATH's explicit and inherited allow ACEs: "ace=SID FLAGS" (i: inherited, c: inherits). */
static int acl(const char *path)
{
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD e = GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                    &dacl, NULL, &sd);
    if (e != ERROR_SUCCESS)
        return printf("acl_error=%lu\n", e), 1;
    for (DWORD i = 0; dacl && i < dacl->AceCount; i++) {
        ACE_HEADER *h;
        char *s = NULL;
        if (!GetAce(dacl, i, (void **)&h) || h->AceType != ACCESS_ALLOWED_ACE_TYPE)
            continue;
        if (ConvertSidToStringSidA((PSID) & ((ACCESS_ALLOWED_ACE *)h)->SidStart, &s)) {
            printf("ace=%s %s%s\n", s, (h->AceFlags & INHERITED_ACE) ? "i" : "-",
                   (h->AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)) ? "c" : "-");
            LocalFree(s);
        }
    }
    LocalFree(sd);
    return 0;
}

static int write_file(const char *path)
{
    HANDLE h = CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return printf("write=refused %lu\n", GetLastError()), 0;
    DWORD n;
    WriteFile(h, "probe\n", 6, &n, NULL);
    CloseHandle(h);
    return printf("write=ok\n"), 0;
}

/* Start this program again with ARG, not waiting for it; its pid. */
static int start_self(const char *arg, DWORD flags)
{
    char self[MAX_PATH], line[MAX_PATH + 32];
    STARTUPINFOA si = {.cb = sizeof si};
    PROCESS_INFORMATION pi;
    GetModuleFileNameA(NULL, self, sizeof self);
    snprintf(line, sizeof line, "\"%s\" %s", self, arg);
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, flags, NULL, NULL, &si, &pi))
        return printf("spawn_error=%lu\n", GetLastError()), -1;
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return (int)pi.dwProcessId;
}

static int add_ace(char *path, const char *sidtext)
{
    PSID sid = NULL;
    PACL old = NULL, acl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    if (!ConvertStringSidToSidA(sidtext, &sid))
        return printf("sid_error=%lu\n", GetLastError()), 1;
    GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old, NULL,
                          &sd);
    EXPLICIT_ACCESS_A ea = {.grfAccessPermissions = FILE_GENERIC_WRITE,
                            .grfAccessMode = GRANT_ACCESS,
                            .grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT,
                            .Trustee = {.TrusteeForm = TRUSTEE_IS_SID, .ptstrName = sid}};
    DWORD e = SetEntriesInAclA(1, &ea, old, &acl);
    if (e == ERROR_SUCCESS)
        e = SetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, acl,
                                  NULL);
    printf("addace=%lu\n", e);
    LocalFree(acl);
    LocalFree(sd);
    LocalFree(sid);
    return e != ERROR_SUCCESS;
}

static int alive(const char *pid)
{
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)strtoul(pid, NULL, 10));
    bool running = h && WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
    if (h)
        CloseHandle(h);
    return printf("alive=%d\n", running ? 1 : 0), 0;
}

/* As the plugin's python backend in a pytest inside the run: join it and record a refused
 * write, which the run then reports. */
static int record(const char *path)
{
    tf_session *s = tf_open();
    const char *ws = getenv("TESTFENCE_PLUGIN");
    if (!s || !ws || tf_attach(s, ws) != 0)
        return printf("attach_error=%s\n", s ? tf_error(s) : "no session"), 1;
    int rc =
        tf_record(s, "open", path, path, EACCES, 1, "tests/test_probe.py::test_writes", "call");
    printf("record=%d\n", rc);
    tf_close(s);
    return rc != 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "token"))
        return token();
    if (!strcmp(m, "mktoken"))
        return mktoken();
    if (!strcmp(m, "job"))
        return job();
    if (!strcmp(m, "acl") && argc > 2)
        return acl(argv[2]);
    if (!strcmp(m, "write") && argc > 2)
        return write_file(argv[2]);
    if (!strcmp(m, "args")) {
        for (int i = 2; i < argc; i++)
            printf("arg=[%s]\n", argv[i]);
        return 0;
    }
    if (!strcmp(m, "env")) {
        for (int i = 2; i < argc; i++)
            printf("%s=%s\n", argv[i], getenv(argv[i]) ? getenv(argv[i]) : "(unset)");
        return 0;
    }
    if (!strcmp(m, "spawn-sleeper"))
        return printf("sleeper=%d\n", start_self("sleep", 0)), 0;
    if (!strcmp(m, "spawn-and-sleep")) {
        printf("sleeper=%d\n", start_self("sleep", 0));
        fflush(stdout);
        return Sleep(600000), 0;
    }
    if (!strcmp(m, "breakaway")) {
        int pid = start_self("sleep", CREATE_BREAKAWAY_FROM_JOB);
        return printf("breakaway=%s\n", pid > 0 ? "allowed" : "refused"), 0;
    }
    if (!strcmp(m, "sleep"))
        return Sleep(600000), 0;
    if (!strcmp(m, "addace") && argc > 3)
        return add_ace(argv[2], argv[3]);
    if (!strcmp(m, "alive") && argc > 2)
        return alive(argv[2]);
    if (!strcmp(m, "record") && argc > 2)
        return record(argv[2]);
    if (!strcmp(m, "exit") && argc > 2)
        return atoi(argv[2]);
    fprintf(stderr, "usage: winfence_probe token|job|acl|write|args|env|spawn-sleeper|...\n");
    return 2;
}

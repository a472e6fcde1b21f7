/* winfence: core/osfence.h on Windows. The command runs with a write-restricted token: every
 * write access is checked twice, against the user's groups and against the restricting SIDs
 * (the run's SID, the logon SID, RESTRICTED), and the run's SID is granted write only on the
 * writable set and the run's temp dir (winacl). Everyone, Users and Authenticated Users are
 * left out of the restricting list: a directory writable by them elsewhere stays refused.
 * A Job Object (kill on close, no breakaway) holds the command and all it starts. */
#include "core/osfence.h"
#include "winacl.h"
#include "winspawn.h"

#include <aclapi.h>
#include <stdlib.h>
#include <string.h>

const char osfence_name[] = "restricted-token";

const char osfence_about[] =
    "Windows: a write-restricted token (restricting SIDs: this run's SID, the logon SID,\n"
    "RESTRICTED; not Everyone, Users or Authenticated Users) and a Job Object (kill on\n"
    "close, no breakaway). The run's SID may write only the writable set and the run's temp\n"
    "dir (an ACE on each, removed at the end). Every process of the command is refused\n"
    "writes elsewhere: native code, child processes and every API included. REPORTED (a\n"
    "TEST_SANDBOX_VIOLATION line, the test failed, exit 120): the writes a pytest with the\n"
    "testfence plugin refuses itself (its python backend joins this run). ONLY REFUSED,\n"
    "unreported (no LD_PRELOAD shim on Windows): every other process's writes, which fail\n"
    "with access denied. Not blocked: a handle inherited open from outside the run, and\n"
    "objects that grant the logon SID or RESTRICTED write (the session's own objects,\n"
    "devices such as NUL). %LOCALAPPDATA% is read and executed from, never written: per-user\n"
    "tools that write their own state there fail; TEMP and TMP are the run's temp dir.\n";

const char osfence_note[] =
    "testfence: only the writes a pytest with the testfence plugin refused itself are\n"
    "           recorded here: Windows refused every other write outside the fence (access\n"
    "           denied) without a record (no LD_PRELOAD shim there), so this list may be\n"
    "           incomplete.\n";

const bool osfence_falls_back = false;

/* The restricting SIDs: the run's, the logon SID (the session's desktop, window station and
 * the console), RESTRICTED (device objects such as NUL grant it). *N: how many. */
struct sids {
    PSID run, logon, restricted;
    BYTE logon_buf[SECURITY_MAX_SID_SIZE];
    SID_AND_ATTRIBUTES list[3];
    DWORD n;
};

/* The logon SID of TOKEN into S, if it has one (a service's token may not). */
static void logon_sid(HANDLE token, struct sids *s)
{
    DWORD len = 0;
    GetTokenInformation(token, TokenGroups, NULL, 0, &len);
    TOKEN_GROUPS *g = len ? malloc(len) : NULL;
    if (g && GetTokenInformation(token, TokenGroups, g, len, &len))
        for (DWORD i = 0; i < g->GroupCount; i++)
            if ((g->Groups[i].Attributes & SE_GROUP_LOGON_ID) == SE_GROUP_LOGON_ID &&
                CopySid(sizeof s->logon_buf, s->logon_buf, g->Groups[i].Sid)) {
                s->logon = s->logon_buf;
                break;
            }
    free(g);
}

static int make_sids(HANDLE token, struct sids *s, tf_err *err)
{
    SID_IDENTIFIER_AUTHORITY nt = {SECURITY_NT_AUTHORITY};
    memset(s, 0, sizeof *s);
    if (winacl_run_sid(&s->run, err) < 0)
        return -1;
    if (!AllocateAndInitializeSid(&nt, 1, SECURITY_RESTRICTED_CODE_RID, 0, 0, 0, 0, 0, 0, 0,
                                  &s->restricted))
        return tf_errf(err, "cannot make the RESTRICTED SID (error %lu)", GetLastError());
    logon_sid(token, s);
    s->list[s->n++].Sid = s->run;
    if (s->logon)
        s->list[s->n++].Sid = s->logon;
    s->list[s->n++].Sid = s->restricted;
    return 0;
}

static void free_sids(struct sids *s)
{
    if (s->run)
        FreeSid(s->run);
    if (s->restricted)
        FreeSid(s->restricted);
}

/* What the command creates with no ACL of its own (pipes, its children, events) gets the
 * token's default DACL: it must grant the run's SID too, or the command could not write to
 * its own objects. The user, SYSTEM, the run's SID and the logon SID: all access. */
static int default_dacl(HANDLE rt, HANDLE token, const struct sids *s, tf_err *err)
{
    BYTE user_buf[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE], system[SECURITY_MAX_SID_SIZE];
    DWORD len = sizeof user_buf, slen = sizeof system;
    if (!GetTokenInformation(token, TokenUser, user_buf, len, &len) ||
        !CreateWellKnownSid(WinLocalSystemSid, NULL, system, &slen))
        return tf_errf(err, "cannot read this process's user (error %lu)", GetLastError());
    PSID who[4] = {((TOKEN_USER *)user_buf)->User.Sid, system, s->run, s->logon};
    EXPLICIT_ACCESS_A ea[4];
    DWORD n = 0;
    for (int i = 0; i < 4; i++)
        if (who[i])
            ea[n++] = (EXPLICIT_ACCESS_A){
                .grfAccessPermissions = GENERIC_ALL,
                .grfAccessMode = SET_ACCESS,
                .Trustee = {.TrusteeForm = TRUSTEE_IS_SID, .ptstrName = (LPSTR)who[i]}};
    PACL acl = NULL;
    DWORD e = SetEntriesInAclA(n, ea, NULL, &acl);
    TOKEN_DEFAULT_DACL d = {.DefaultDacl = acl};
    int rc = e == ERROR_SUCCESS && SetTokenInformation(rt, TokenDefaultDacl, &d, sizeof d)
                 ? 0
                 : tf_errf(err, "cannot set the run token's default DACL (error %lu)",
                           e != ERROR_SUCCESS ? e : GetLastError());
    LocalFree(acl);
    return rc;
}

/* The command's token: this process's, write-restricted to S, every privilege but
 * SeChangeNotify dropped (SeBackup and SeRestore would pass any ACL). */
static int restricted_token(struct sids *s, HANDLE *rt, tf_err *err)
{
    HANDLE token = NULL;
    *rt = NULL;
    memset(s, 0, sizeof *s);
    if (!OpenProcessToken(
            GetCurrentProcess(),
            TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT, &token))
        return tf_errf(err, "cannot open this process's token (error %lu)", GetLastError());
    int rc = make_sids(token, s, err);
    if (rc == 0 && !CreateRestrictedToken(token, DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED, 0, NULL,
                                          0, NULL, s->n, s->list, rt))
        rc = tf_errf(err, "cannot make a write-restricted token (error %lu)", GetLastError());
    if (rc == 0)
        rc = default_dacl(*rt, token, s, err);
    CloseHandle(token);
    if (rc < 0 && *rt) {
        CloseHandle(*rt);
        *rt = NULL;
    }
    return rc;
}

/* A Job Object that kills all it holds when its last handle closes (this process's: when
 * testfence ends, killed or not), and lets nothing break away from it. */
static int make_job(HANDLE *job, tf_err *err)
{
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
    li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    *job = CreateJobObjectA(NULL, NULL);
    if (!*job)
        return tf_errf(err, "cannot make a Job Object (error %lu)", GetLastError());
    if (!SetInformationJobObject(*job, JobObjectExtendedLimitInformation, &li, sizeof li)) {
        CloseHandle(*job);
        *job = NULL;
        return tf_errf(err, "cannot set the Job Object's limits (error %lu)", GetLastError());
    }
    return 0;
}

int osfence_probe(char *layer, size_t len, tf_err *err)
{
    struct sids s;
    HANDLE rt = NULL, job = NULL;
    int rc = restricted_token(&s, &rt, err);
    if (rc == 0)
        rc = make_job(&job, err);
    if (rc == 0) {
        char run[96], logon[96] = "none";
        winacl_sid_text(s.run, run, sizeof run);
        if (s.logon)
            winacl_sid_text(s.logon, logon, sizeof logon);
        snprintf(layer, len,
                 "a write-restricted token (restricting SIDs: %s the run's, %s the logon SID, "
                 "S-1-5-12 RESTRICTED) and a Job Object (kill on close, no breakaway)",
                 run, logon);
    }
    if (rt)
        CloseHandle(rt);
    if (job)
        CloseHandle(job);
    free_sids(&s);
    return rc;
}

/* ACEs that killed runs left on the paths, removed (their runs are over: no process holds
 * their SIDs), and said. */
static void sweep_all(const struct osfence_run *r)
{
    for (size_t i = 0; i < r->npaths; i++) {
        int n = 0;
        tf_err err = {0};
        if (winacl_sweep(r->paths[i].path, &n, &err) < 0)
            fprintf(r->warn, "testfence: %s\n", err.msg);
        else if (n > 0)
            fprintf(r->warn, "testfence: removed %d ACE%s a run that did not finish left on %s\n",
                    n, n == 1 ? "" : "s", r->paths[i].path);
    }
}

/* Take the run's ACEs off the first N paths; what cannot be taken off is said (it grants
 * nothing once this run is over, and the next run's sweep removes it). */
static void revoke_all(const struct osfence_run *r, PSID sid, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tf_err err = {0};
        if (winacl_revoke(r->paths[i].path, sid, &err) < 0)
            fprintf(r->warn,
                    "testfence: %s: the run's ACE stays there, granting nothing now; the next "
                    "run removes it\n",
                    err.msg);
    }
}

/* Grant the run's SID write on every path; *N: how many were granted (to be revoked). */
static int grant_all(const struct osfence_run *r, PSID sid, size_t *n, tf_err *err)
{
    for (*n = 0; *n < r->npaths; (*n)++)
        if (winacl_grant(r->paths[*n].path, r->paths[*n].is_dir, sid, err) < 0)
            return -1;
    return 0;
}

/* The processes the command left running in JOB: killed; how many. */
static int kill_left(HANDLE job)
{
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info = {0};
    if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &info, sizeof info,
                                   NULL))
        return 0;
    if (info.ActiveProcesses > 0)
        TerminateJobObject(job, 1);
    return (int)info.ActiveProcesses;
}

int osfence_launch(const struct osfence_run *r, struct osfence_result *res, tf_err *err)
{
    struct sids s;
    HANDLE rt = NULL, job = NULL;
    size_t granted = 0;
    *res = (struct osfence_result){0};
    int rc = restricted_token(&s, &rt, err);
    if (rc == 0)
        rc = make_job(&job, err);
    if (rc == 0) {
        sweep_all(r);
        rc = grant_all(r, s.run, &granted, err);
    }
    if (rc == 0)
        rc = winspawn_run(rt, job, r->argv, r->envp, &res->status, err);
    if (job) {
        res->left = kill_left(job);
        CloseHandle(job);
    }
    revoke_all(r, s.run, granted);
    if (rt)
        CloseHandle(rt);
    free_sids(&s);
    return rc;
}

/* winacl: see winacl.h. An ACE naming a run SID grants nothing once its run is over (no token
 * will hold that SID again), so a left one is clutter, not a hole; it is removed all the same. */
#include "winacl.h"

#include <aclapi.h>
#include <sddl.h>
#include <string.h>

int winacl_run_sid(PSID *sid, tf_err *err)
{
    SID_IDENTIFIER_AUTHORITY rm = {SECURITY_RESOURCE_MANAGER_AUTHORITY};
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return tf_errf(err, "cannot read this process's start time (error %lu)", GetLastError());
    if (!AllocateAndInitializeSid(&rm, 4, WINACL_MAGIC, GetCurrentProcessId(),
                                  created.dwHighDateTime, created.dwLowDateTime, 0, 0, 0, 0, sid))
        return tf_errf(err, "cannot make the run's SID (error %lu)", GetLastError());
    return 0;
}

void winacl_sid_text(PSID sid, char *out, size_t len)
{
    char *s = NULL;
    if (ConvertSidToStringSidA(sid, &s)) {
        snprintf(out, len, "%s", s);
        LocalFree(s);
    } else {
        snprintf(out, len, "(a SID)");
    }
}

bool winacl_is_run_sid(PSID sid)
{
    PSID_IDENTIFIER_AUTHORITY a = GetSidIdentifierAuthority(sid);
    static const BYTE rm[6] = {0, 0, 0, 0, 0, 9};
    return IsValidSid(sid) && memcmp(a->Value, rm, 6) == 0 && *GetSidSubAuthorityCount(sid) == 4 &&
           *GetSidSubAuthority(sid, 0) == WINACL_MAGIC;
}

bool winacl_run_alive(PSID sid)
{
    DWORD pid = *GetSidSubAuthority(sid, 1);
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!h)
        return GetLastError() == ERROR_ACCESS_DENIED; /* someone's process: not ours to judge */
    FILETIME created, exited, kernel, user;
    DWORD code = 0;
    bool alive = GetProcessTimes(h, &created, &exited, &kernel, &user) &&
                 created.dwHighDateTime == *GetSidSubAuthority(sid, 2) &&
                 created.dwLowDateTime == *GetSidSubAuthority(sid, 3) &&
                 GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
    CloseHandle(h);
    return alive;
}

/* PATH with backslashes, as a Win32 name. */
static void native(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", path);
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '\\';
}

/* PATH's DACL, its security descriptor (LocalFree it) and whether it is protected. */
static int read_dacl(const char *path, PACL *dacl, PSECURITY_DESCRIPTOR *sd, bool *protect,
                     tf_err *err)
{
    SECURITY_DESCRIPTOR_CONTROL ctl = 0;
    DWORD rev = 0;
    DWORD e = GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                    dacl, NULL, sd);
    if (e != ERROR_SUCCESS)
        return tf_errf(err, "cannot read the permissions of %s (error %lu)", path, e);
    *protect = GetSecurityDescriptorControl(*sd, &ctl, &rev) && (ctl & SE_DACL_PROTECTED);
    return 0;
}

/* Set PATH's DACL, keeping whether it inherits from its directory. */
static int write_dacl(char *path, PACL dacl, bool protect, tf_err *err)
{
    SECURITY_INFORMATION si =
        DACL_SECURITY_INFORMATION |
        (protect ? PROTECTED_DACL_SECURITY_INFORMATION : UNPROTECTED_DACL_SECURITY_INFORMATION);
    DWORD e = SetNamedSecurityInfoA(path, SE_FILE_OBJECT, si, NULL, NULL, dacl, NULL);
    if (e != ERROR_SUCCESS)
        return tf_errf(err, "cannot change the permissions of %s (error %lu)", path, e);
    return 0;
}

int winacl_grant(const char *path, bool is_dir, PSID sid, tf_err *err)
{
    char name[MAX_PATH * 2];
    PACL old = NULL, acl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    bool protect = false;
    native(path, name, sizeof name);
    if (read_dacl(name, &old, &sd, &protect, err) < 0)
        return -1;
    EXPLICIT_ACCESS_A ea = {
        .grfAccessPermissions = FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE |
                                DELETE | (is_dir ? FILE_DELETE_CHILD : 0),
        .grfAccessMode = GRANT_ACCESS,
        .grfInheritance = is_dir ? SUB_CONTAINERS_AND_OBJECTS_INHERIT : NO_INHERITANCE,
        .Trustee = {.TrusteeForm = TRUSTEE_IS_SID,
                    .TrusteeType = TRUSTEE_IS_UNKNOWN,
                    .ptstrName = (LPSTR)sid},
    };
    DWORD e = SetEntriesInAclA(1, &ea, old, &acl);
    int rc = e == ERROR_SUCCESS
                 ? write_dacl(name, acl, protect, err)
                 : tf_errf(err, "cannot grant the run write on %s (error %lu)", path, e);
    LocalFree(acl);
    LocalFree(sd);
    return rc;
}

/* Remove PATH's explicit allow ACEs whose SID DROP says to drop (its explicit ACEs only:
 * the inherited ones are made again from its directory's). *N: how many. */
static int strip(const char *path, bool (*drop)(PSID, PSID), PSID arg, int *n, tf_err *err)
{
    char name[MAX_PATH * 2];
    PACL old = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    bool protect = false;
    *n = 0;
    native(path, name, sizeof name);
    if (read_dacl(name, &old, &sd, &protect, err) < 0)
        return -1;
    PACL acl = old ? LocalAlloc(LPTR, old->AclSize) : NULL;
    int rc = 0;
    if (old && (!acl || !InitializeAcl(acl, old->AclSize, ACL_REVISION)))
        rc = tf_errf(err, "out of memory");
    for (DWORD i = 0; rc == 0 && old && i < old->AceCount; i++) {
        ACE_HEADER *h = NULL;
        if (!GetAce(old, i, (void **)&h) || (h->AceFlags & INHERITED_ACE))
            continue;
        if (h->AceType == ACCESS_ALLOWED_ACE_TYPE &&
            drop((PSID) & ((ACCESS_ALLOWED_ACE *)h)->SidStart, arg)) {
            (*n)++;
            continue;
        }
        if (!AddAce(acl, ACL_REVISION, MAXDWORD, h, h->AceSize))
            rc = tf_errf(err, "cannot copy an ACE of %s (error %lu)", path, GetLastError());
    }
    if (rc == 0 && *n > 0)
        rc = write_dacl(name, acl, protect, err);
    LocalFree(acl);
    LocalFree(sd);
    return rc;
}

static bool same_sid(PSID ace, PSID sid)
{
    return EqualSid(ace, sid);
}

static bool over_run(PSID ace, PSID unused)
{
    (void)unused;
    return winacl_is_run_sid(ace) && !winacl_run_alive(ace);
}

int winacl_revoke(const char *path, PSID sid, tf_err *err)
{
    int n = 0;
    return strip(path, same_sid, sid, &n, err);
}

int winacl_sweep(const char *path, int *removed, tf_err *err)
{
    return strip(path, over_run, NULL, removed, err);
}

/* linux_compat: kernel constants newer than Debian 12's headers (Landlock up to ABI 7,
 * the newest metadata syscalls), defined here and only here. */
#ifndef TESTFENCE_LINUX_COMPAT_H
#define TESTFENCE_LINUX_COMPAT_H

#include <linux/ioctl.h>
#include <stdint.h>
#include <sys/syscall.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* Metadata syscalls added after Debian 12's headers (x86_64 numbers). */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
#ifndef SYS_file_setattr
#define SYS_file_setattr 469
#endif

/* Linux 6.8's file system queries: struct fsuuid2 (a length and 16 bytes) and struct
 * fs_sysfs_path (a length and 128 bytes). */
#define TF_FS_IOC_GETFSUUID _IOR(0x15, 0, char[17])
#define TF_FS_IOC_GETFSSYSFSPATH _IOR(0x15, 1, char[129])

#define TF_LL_CREATE_RULESET_VERSION (1U << 0)
#define TF_LL_RULE_PATH_BENEATH 1

/* Filesystem access rights, with the ABI that introduced each. */
#define TF_LL_FS_EXECUTE (1ULL << 0)     /* ABI 1 */
#define TF_LL_FS_WRITE_FILE (1ULL << 1)  /* ABI 1 */
#define TF_LL_FS_READ_FILE (1ULL << 2)   /* ABI 1 */
#define TF_LL_FS_READ_DIR (1ULL << 3)    /* ABI 1 */
#define TF_LL_FS_REMOVE_DIR (1ULL << 4)  /* ABI 1 */
#define TF_LL_FS_REMOVE_FILE (1ULL << 5) /* ABI 1 */
#define TF_LL_FS_MAKE_CHAR (1ULL << 6)   /* ABI 1 */
#define TF_LL_FS_MAKE_DIR (1ULL << 7)    /* ABI 1 */
#define TF_LL_FS_MAKE_REG (1ULL << 8)    /* ABI 1 */
#define TF_LL_FS_MAKE_SOCK (1ULL << 9)   /* ABI 1 */
#define TF_LL_FS_MAKE_FIFO (1ULL << 10)  /* ABI 1 */
#define TF_LL_FS_MAKE_BLOCK (1ULL << 11) /* ABI 1 */
#define TF_LL_FS_MAKE_SYM (1ULL << 12)   /* ABI 1 */
#define TF_LL_FS_REFER (1ULL << 13)      /* ABI 2 */
#define TF_LL_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define TF_LL_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */

/* The rights a rule on a non-directory may carry (others make add_rule fail with EINVAL). */
#define TF_LL_FS_FILE_RIGHTS                                                                       \
    (TF_LL_FS_EXECUTE | TF_LL_FS_WRITE_FILE | TF_LL_FS_READ_FILE | TF_LL_FS_TRUNCATE |             \
     TF_LL_FS_IOCTL_DEV)

/* Our own copies of the UAPI structs: the kernel takes their size as an
 * argument, so a struct that grew in a later ABI stays compatible. */
struct tf_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* What a Landlock domain may not reach outside itself (ABI 6). */
#define TF_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define TF_LL_SCOPE_SIGNAL (1ULL << 1)

struct tf_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#endif

/* ioctls: which ioctl requests change nothing outside the writable set, and which are refused
 * whatever file they are made on. The guard's filter, the shim and the plugin share it. */
#include "ioctls.h"

#include "linux_compat.h"

#include <asm/termbits.h>
#include <linux/blkzoned.h>
#include <linux/cdrom.h>
#include <linux/fd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/hdreg.h>
#include <linux/random.h>
#include <linux/sockios.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* ioctl requests that change nothing in the file tree, whatever file they are made on:
 * terminal control, fd flags, queries. Any other request on a file outside the writable set
 * is refused: inode flags (chattr), project ids, fs labels, encryption policies, verity,
 * btrfs subvolumes, block-device writes, whatever a file system adds next. */
static const uint32_t harmless[] = {
    TCGETS,
    TCSETS,
    TCSETSW,
    TCSETSF,
    TCGETA,
    TCGETS2,
    TCSBRK,
    TCXONC,
    TCFLSH,
    TIOCEXCL,
    TIOCNXCL,
    TIOCSCTTY,
    TIOCGPGRP,
    TIOCSPGRP,
    TIOCOUTQ,
    TIOCGWINSZ,
    TIOCSWINSZ,
    TIOCMGET,
    TIOCNOTTY,
    TIOCGETD,
    TIOCGSID,
    TIOCGPTN,
    TIOCSPTLCK,
    TIOCGPTPEER,
    TIOCGDEV,
    FIONREAD,
    FIONBIO,
    FIOASYNC,
    FIOCLEX,
    FIONCLEX,
    FIOQSIZE,
    FIGETBSZ,
    FS_IOC_GETFLAGS,
    FS_IOC32_GETFLAGS,
    FS_IOC_GETVERSION,
    FS_IOC32_GETVERSION,
    FS_IOC_FSGETXATTR,
    FS_IOC_FIEMAP,
    FS_IOC_GETFSLABEL,
    /* These write only through an fd opened for writing, which Landlock already judged. */
    FICLONE,
    FICLONERANGE,
    FIDEDUPERANGE,
    BLKGETSIZE,
    BLKGETSIZE64,
    BLKSSZGET,
    BLKBSZGET,
    /* Read-only queries of devices and file systems (blkid, lsblk, findmnt ask them). */
    BLKROGET,
    BLKPBSZGET,
    BLKIOMIN,
    BLKIOOPT,
    BLKALIGNOFF,
    BLKROTATIONAL,
    BLKGETZONESZ,
    BLKGETNRZONES,
    BLKGETDISKSEQ,
    HDIO_GETGEO,
    /* What blkid asks every block device (a loop device, a CD drive): is it a floppy, a
     * CD, and how much is written; losetup, what a loop device holds. */
    FDGETFDCSTAT,
    FDGETDRVTYP,
    CDROM_GET_CAPABILITY,
    CDROM_LAST_WRITTEN,
    CDROM_DRIVE_STATUS,
    CDROM_DISC_STATUS,
    CDROMMULTISESSION,
    LOOP_GET_STATUS,
    LOOP_GET_STATUS64,
    TF_FS_IOC_GETFSUUID,
    TF_FS_IOC_GETFSSYSFSPATH,
    RNDGETENTCNT,
    SIOCGIFCONF,
    SIOCGIFFLAGS,
    SIOCGIFINDEX,
    SIOCGIFADDR,
    SIOCGIFHWADDR,
    SIOCGIFMTU,
    SIOCGIFNAME,
    SIOCGSTAMP_OLD,
};

/* Typing into the terminal (TIOCSTI) and the console's own commands (TIOCLINUX): another
 * process would run what a test types. */
static const uint32_t refused[] = {TIOCSTI, TIOCLINUX};

const uint32_t *ioctls_harmless(size_t *n)
{
    *n = sizeof harmless / sizeof harmless[0];
    return harmless;
}

const uint32_t *ioctls_refused(size_t *n)
{
    *n = sizeof refused / sizeof refused[0];
    return refused;
}

static bool listed(const uint32_t *t, size_t n, unsigned long req)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] == (uint32_t)req)
            return true;
    return false;
}

/* The kernel compares the request as an unsigned int: the upper bits of a long are ignored. */
enum ioctl_class ioctl_classify(unsigned long req)
{
    if (listed(refused, sizeof refused / sizeof refused[0], req))
        return IOCTL_REFUSED;
    if (listed(harmless, sizeof harmless / sizeof harmless[0], req))
        return IOCTL_HARMLESS;
    return IOCTL_JUDGED;
}

/* Unit tests for src/linux/ioctls.c: the queries block-device tools make pass, what changes
 * an inode is judged by its file, and typing into the terminal is refused everywhere. */
#include "check.h"
#include "linux/ioctls.h"

#include <linux/blkzoned.h>
#include <linux/cdrom.h>
#include <linux/fd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>

/* What blkid, lsblk and losetup ask every device: seen refused under the fence on a
 * machine with a loop device (blkid exited 0, the run 120). */
static void test_device_queries_are_harmless(void)
{
    const unsigned long asked[] = {BLKGETSIZE64,       BLKSSZGET,          BLKGETZONESZ,
                                   BLKGETNRZONES,      FDGETFDCSTAT,       CDROM_GET_CAPABILITY,
                                   CDROM_LAST_WRITTEN, CDROM_DRIVE_STATUS, LOOP_GET_STATUS64};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++)
        CHECK(ioctl_classify(asked[i]) == IOCTL_HARMLESS);
}

static void test_changes_are_judged_and_typing_refused(void)
{
    CHECK(ioctl_classify(FS_IOC_SETFLAGS) == IOCTL_JUDGED);
    CHECK(ioctl_classify(LOOP_SET_STATUS64) == IOCTL_JUDGED);
    CHECK(ioctl_classify(LOOP_CLR_FD) == IOCTL_JUDGED);
    CHECK(ioctl_classify(TIOCSTI) == IOCTL_REFUSED);
    /* The kernel compares 32 bits: upper bits set change nothing. */
    CHECK(ioctl_classify(TIOCSTI | 0xffffffff00000000UL) == IOCTL_REFUSED);
    CHECK(ioctl_classify(FDGETFDCSTAT | 0xffffffff00000000UL) == IOCTL_HARMLESS);
}

int main(void)
{
    test_device_queries_are_harmless();
    test_changes_are_judged_and_typing_refused();
    return check_done("test_ioctls");
}

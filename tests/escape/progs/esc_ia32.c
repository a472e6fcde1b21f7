/* esc_ia32: try a metadata change through the 32-bit syscall table (int $0x80 from this
 * 64-bit process), which a seccomp filter keyed on x86_64 numbers does not see. */
#include "esc.h"

#include <stdlib.h>

/* i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define IA32_CHMOD 15
#define IA32_LCHOWN 16

/* int $0x80 passes 32-bit pointers: the path must live below 4 GiB, so it is copied
 * into this static buffer of a non-PIE binary (the stack and argv are above it). */
static char path32[4096];

static long ia32_syscall3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 3 || strlen(argv[2]) >= sizeof path32)
        return esc_usage(argv[0], "chmod PATH | lchown PATH UID GID");
    if ((unsigned long)(void *)path32 >= 0x100000000UL) {
        fprintf(stderr, "esc_ia32: built as PIE, cannot pass a 32-bit pointer\n");
        return 2;
    }
    strcpy(path32, argv[2]);
    long r;
    if (argc == 3 && !strcmp(argv[1], "chmod"))
        r = ia32_syscall3(IA32_CHMOD, (long)(unsigned long)path32, 0666, 0);
    else if (argc == 5 && !strcmp(argv[1], "lchown"))
        r = ia32_syscall3(IA32_LCHOWN, (long)(unsigned long)path32, atol(argv[3]), atol(argv[4]));
    else
        return esc_usage(argv[0], "chmod PATH | lchown PATH UID GID");
    return esc_result(r < 0 ? -1 : 0, r < 0 ? (int)-r : 0);
}

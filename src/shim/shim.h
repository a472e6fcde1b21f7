/* shim: libtestfence_preload.so, the diagnostic layer injected with LD_PRELOAD.
 * It interposes libc's write family; this header names what the interposers share. */
#ifndef TESTFENCE_SHIM_H
#define TESTFENCE_SHIM_H

#include <stdbool.h>
#include <stdio.h>

/* How an interposed call is checked. */
enum {
    SHIM_SKIP = 1 << 0,     /* not a write (open for reading): never looked at */
    SHIM_NOFOLLOW = 1 << 1, /* the call acts on the last component itself, not a symlink's target */
    SHIM_META = 1 << 2,     /* metadata (chmod, utimes, xattrs): Landlock cannot block it; when
                               no seccomp guard does either, the shim refuses it beforehand */
    SHIM_EMPTY = 1 << 3,    /* AT_EMPTY_PATH: an empty PATH names DIRFD itself */
    SHIM_REMOVES = 1 << 4,  /* removes PATH (unlink, rmdir, the old name of a rename) */
};

/* A call writes PATH relative to DIRFD, and for rename and link also PATH2 relative
 * to DIRFD2 (PATH2 NULL: no second path). A NULL or empty PATH with a DIRFD >= 0
 * names the open file DIRFD itself (fchmod, futimens). */

/* Before the real call: true (errno EACCES, the attempt recorded) when the shim itself
 * must refuse it: in block mode (--backend preload), or for SHIM_META calls when the
 * kernel does not guard metadata. */
bool shim_pre(const char *op, unsigned how, int dirfd, const char *path, int dirfd2,
              const char *path2);

/* Before an ioctl REQ on FD, where no guard judges ioctls (the plugin, a nested run) or in
 * block mode: true (errno EACCES or EPERM, the attempt recorded) when the shim must refuse
 * it: typing into the terminal always, and a request that may change the file (inode flags,
 * labels) on a file outside the writable set. */
bool shim_ioctl_pre(int fd, unsigned long req);

/* After the real call failed: record it when the fence is why (errno kept). */
void shim_post(const char *op, unsigned how, int dirfd, const char *path, int dirfd2,
               const char *path2);

/* tmpfile() and tmpfile64(): glibc's makes its unnamed file in /tmp whatever TMPDIR says, and
 * the fence refuses /tmp. True when the shim made it in the run's temp dir instead (the one
 * testfence wrote in the configuration, not $TMPDIR, which the program may have changed):
 * *OUT is the "w+" stream, or NULL with errno when the file was made but no stream could be.
 * False (nothing done): the shim is not looking, or that dir cannot be used (removed, not
 * writable); then glibc's runs, and its refusal is recorded as any other. */
bool shim_tmpfile(FILE **out);

/* Exported for a process that fences itself after it started with the shim preloaded (the
 * pytest plugin, through ctypes): look from now on with the configuration at CONF too, stacked
 * on the one in force (each refuses and records for its own run). 0, or -1 when CONF cannot
 * be read. */
int testfence_shim_attach(const char *conf);

/* Exported for a process the shim was loaded into after it started (the pytest plugin,
 * through ctypes, instead of starting pytest again with LD_PRELOAD): look from now on, as
 * testfence_shim_attach, and point the loaded objects' calls to the interposed functions at
 * the shim (shim_patch.c). 0, or -1: CONF cannot be read, or this platform cannot be patched
 * (then nothing is). */
int testfence_shim_patch(const char *conf);

/* Exported for the pytest plugin (through ctypes): FN names the frames of the Python code
 * running on the calling thread, asked only when a write is refused (shim.c says how). What it
 * answers only adds the record's source fields. The first registered in a process keeps its
 * place: 0, or -1 (another is registered, no memory, no Python in the process to ask). */
int testfence_shim_frames(int (*fn)(char *buf, int cap));

/* Unregister FN, the one registered: 0, or -1 (FN is not it). */
int testfence_shim_frames_off(int (*fn)(char *buf, int cap));

/* 1 where testfence_shim_patch can work (x86_64, aarch64), else 0. */
int testfence_shim_patchable(void);

/* Patch what was loaded since (a no-op when nothing was, or before testfence_shim_patch). */
void testfence_shim_rescan(void);

/* shim_patch.c: patch every loaded object but the shim, libc and testfence's library, and
 * from now on what testfence_shim_rescan finds new. 0, or -1 where it cannot. */
int shim_patch_start(void);

/* posix_spawn: an open the file actions FA will make in the child (remembered, the last few),
 * FA destroyed (forgotten), and the spawn's result ERR: when the fence refused one of those
 * opens, it is recorded, and EROFS said as EACCES. Returns the error to give the program. */
void shim_spawn_open(const void *fa, const char *path, unsigned how);
void shim_spawn_forget(const void *fa);
int shim_spawn_post(int err, const void *fa);

/* The real function NAME, looked up once (dlsym RTLD_NEXT; RTLD_DEFAULT once patched in)
 * and cached in *SLOT. */
void *shim_real(void **slot, const char *name);

/* Patched in (shim_patch.c): from now on the real functions are the global scope's. Before
 * any call reaches the shim. */
void shim_real_from_default(void);

#endif

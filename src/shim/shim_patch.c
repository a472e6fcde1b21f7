/* Attaching the shim to a process it was not preloaded into (the pytest plugin, which
 * otherwise had to start pytest again with LD_PRELOAD): every loaded object's GOT entries for
 * the functions the shim interposes are pointed at the shim's own, so their calls reach it
 * as if it were preloaded. What Python and ctypes load later is patched once loaded; what
 * other code loads, at the next testfence_shim_rescan (the plugin calls it at each test phase). */
#include "shim.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The relocations that hold a function's address: a PLT call's slot, a GOT entry (code built
 * with -fno-plt, or taking the address), a pointer in data (sqlite's table of syscalls). */
#if defined(__x86_64__)
#define GOT_JUMP_SLOT R_X86_64_JUMP_SLOT
#define GOT_GLOB_DAT R_X86_64_GLOB_DAT
#define GOT_ABS64 R_X86_64_64
#elif defined(__aarch64__)
#define GOT_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define GOT_GLOB_DAT R_AARCH64_GLOB_DAT
#define GOT_ABS64 R_AARCH64_ABS64
#endif

#ifdef GOT_JUMP_SLOT

enum { MAX_FUNCS = 160 };

/* The functions the shim exports (its interposers), sorted by name; the load counters
 * dl_iterate_phdr reported at the last pass (unchanged: nothing new to patch); the objects
 * patched. Changed only inside dl_iterate_phdr's callbacks, which the loader runs one at a
 * time (its lock), so two threads loading at once do not race here. */
static struct {
    const char *name[MAX_FUNCS];
    void *addr[MAX_FUNCS];
    void *bound[MAX_FUNCS]; /* what the loader binds the name to (dlsym RTLD_DEFAULT) */
    void *bound_dlopen, *bound_dlsym;
    size_t n;
    unsigned long long adds, subs;
    uintptr_t *seen; /* objects patched already, by load address */
    size_t nseen, cap;
    uintptr_t self; /* the shim's load address */
    bool on;
} pt;

/* What the patching needs of an object's dynamic section. */
struct dynamic {
    const ElfW(Sym) * symtab;
    const char *strtab;
    const Elf32_Word *hash; /* DT_HASH: its second word counts the symbols */
    const ElfW(Rela) * rela, *jmprel;
    size_t relasz, jmprelsz;
    bool search_path; /* DT_RUNPATH or DT_RPATH: its dlopen of a bare name looks there */
};

/* glibc has relocated the dynamic section's pointers in place; other loaders leave them
 * relative to the load address. */
static const void *dyn_ptr(uintptr_t base, ElfW(Addr) p)
{
    return (const void *)(p < base ? base + p : p);
}

static bool read_dynamic(const struct dl_phdr_info *info, struct dynamic *d)
{
    memset(d, 0, sizeof *d);
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t b = info->dlpi_addr;
        switch (dyn->d_tag) {
        case DT_SYMTAB:
            d->symtab = dyn_ptr(b, dyn->d_un.d_ptr);
            break;
        case DT_STRTAB:
            d->strtab = dyn_ptr(b, dyn->d_un.d_ptr);
            break;
        case DT_HASH:
            d->hash = dyn_ptr(b, dyn->d_un.d_ptr);
            break;
        case DT_RELA:
            d->rela = dyn_ptr(b, dyn->d_un.d_ptr);
            break;
        case DT_RELASZ:
            d->relasz = dyn->d_un.d_val;
            break;
        case DT_JMPREL:
            d->jmprel = dyn_ptr(b, dyn->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            d->jmprelsz = dyn->d_un.d_val;
            break;
        case DT_RUNPATH:
        case DT_RPATH:
            d->search_path = true;
            break;
        }
    }
    return d->symtab && d->strtab;
}

static int by_name(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return strcmp(pt.name[i], pt.name[j]);
}

/* The shim's own exported functions, from its symbol table (DT_HASH counts them; the shim
 * is linked with both hash styles for that), but not its testfence_* entry points. */
static int own_functions(const struct dl_phdr_info *info)
{
    struct dynamic d;
    if (!read_dynamic(info, &d) || !d.hash)
        return -1;
    const char *name[MAX_FUNCS];
    void *addr[MAX_FUNCS];
    size_t order[MAX_FUNCS], n = 0;
    for (Elf32_Word i = 0; i < d.hash[1]; i++) {
        const ElfW(Sym) *s = &d.symtab[i];
        const char *nm = d.strtab + s->st_name;
        if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
            ELF64_ST_BIND(s->st_info) != STB_GLOBAL || !strncmp(nm, "testfence_", 10))
            continue;
        if (n == MAX_FUNCS)
            return -1;
        name[n] = nm;
        addr[n] = (void *)(info->dlpi_addr + s->st_value);
        order[n] = n;
        n++;
    }
    memcpy(pt.name, name, n * sizeof *name); /* by_name reads pt.name */
    qsort(order, n, sizeof *order, by_name);
    for (size_t i = 0; i < n; i++) {
        pt.name[i] = name[order[i]];
        pt.addr[i] = addr[order[i]];
    }
    pt.n = n;
    return 0;
}

/* The index of the shim's function NM, or -1. */
static long find(const char *nm)
{
    size_t lo = 0, hi = pt.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(nm, pt.name[mid]);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

static void *interposer(const char *nm)
{
    long i = find(nm);
    return i < 0 ? NULL : pt.addr[i];
}

/* What the loader binds NM to, as looked up when the patching started (the global scope only
 * grows at its end, so the first definition stays the first). Never dlsym here: this runs
 * inside dl_iterate_phdr, holding a loader lock that dlsym would take in the other order. */
static void *bound(const char *nm)
{
    long i = find(nm);
    if (i >= 0)
        return pt.bound[i];
    return !strcmp(nm, "dlopen") ? pt.bound_dlopen : !strcmp(nm, "dlsym") ? pt.bound_dlsym : NULL;
}

static void look_up_bound(void)
{
    for (size_t i = 0; i < pt.n; i++)
        pt.bound[i] = dlsym(RTLD_DEFAULT, pt.name[i]);
    pt.bound_dlopen = dlsym(RTLD_DEFAULT, "dlopen");
    pt.bound_dlsym = dlsym(RTLD_DEFAULT, "dlsym");
}

/* Python's ctypes (and cffi) find a C function by name (ctypes.CDLL(None).open): the
 * shim's, where it interposes the one dlsym finds. Only for them: they never ask for
 * RTLD_NEXT (the next object after the caller, which this function cannot know). */
static void *ffi_dlsym(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    long i = p ? find(name) : -1;
    return i >= 0 && p == pt.bound[i] ? pt.addr[i] : p; /* bound[]: looked up at the start */
}

/* FILE with each $ORIGIN (or ${ORIGIN}) made the directory of the object at CALLER, into
 * OUT; false when it cannot be (then FILE is used as it is). */
static bool with_origin(const char *file, const void *caller, char *out, size_t len)
{
    Dl_info who;
    char obj[PATH_MAX], dir[PATH_MAX];
    if (!dladdr(caller, &who))
        return false;
    const char *name = who.dli_fname && who.dli_fname[0] == '/' ? who.dli_fname : "/proc/self/exe";
    if (!realpath(name, obj))
        return false;
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(obj, '/') - obj), obj);
    size_t n = 0;
    for (const char *p = file; *p && n < len - 1;) {
        size_t skip = !strncmp(p, "${ORIGIN}", 9) ? 9 : !strncmp(p, "$ORIGIN", 7) ? 7 : 0;
        if (skip) {
            n += (size_t)snprintf(out + n, len - n, "%s", dir);
            p += skip;
        } else {
            out[n++] = *p++;
        }
    }
    if (n >= len - 1)
        return false;
    out[n] = '\0';
    return true;
}

/* What Python (its extension modules: a full path) and ctypes load is patched before
 * anything in it runs but its constructors: an extension's PyInit_ writes too. glibc takes
 * its caller (this function) for where $ORIGIN is: said for the real caller here; a caller
 * with its own RUNPATH is never routed here (replacement). */
static void *loader_dlopen(const char *file, int mode)
{
    char expanded[PATH_MAX];
    if (file && strstr(file, "ORIGIN") &&
        with_origin(file, __builtin_return_address(0), expanded, sizeof expanded))
        file = expanded;
    void *h = dlopen(file, mode);
    if (h)
        testfence_shim_rescan();
    return h;
}

/* Which of the object's calls to dlsym and dlopen go through the shim: Python's own loader
 * (the executable, libpython) and the foreign-function modules, whose calls name full paths
 * or the library search path alike from any caller; never another library's (a dlopen
 * there may rely on its caller's RUNPATH or $ORIGIN). */
enum object_kind { OBJ_PLAIN, OBJ_LOADER, OBJ_FFI };

static void *replacement(enum object_kind kind, bool search_path, const char *nm)
{
    if (!strcmp(nm, "dlopen"))
        return kind != OBJ_PLAIN && !search_path ? (void *)loader_dlopen : NULL;
    if (kind == OBJ_FFI && !strcmp(nm, "dlsym"))
        return (void *)ffi_dlsym;
    return interposer(nm);
}

/* Is ADDR in one of the object's segments of type TYPE (with PF_W when WRITABLE)? */
static bool in_segment(const struct dl_phdr_info *info, uintptr_t addr, unsigned type,
                       bool writable)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == type && (!writable || (p->p_flags & PF_W)) && addr >= start &&
            addr < start + p->p_memsz)
            return true;
    }
    return false;
}

/* Point each slot among the N relocations R that holds a function the object imports and
 * the shim replaces at the shim's: only while it holds what the loader would bind (the
 * first definition in the global scope: libc's, or an LD_PRELOADed interposer's, fakeroot
 * say, which the shim then calls) or, for a PLT slot, still the lazy-binding stub in the
 * object itself; so a pointer the program set itself stays. Only slots in writable memory
 * or RELRO (made writable meanwhile): never text (a library with text relocations). */
static void patch_relocs(const struct dl_phdr_info *info, const struct dynamic *d,
                         const ElfW(Rela) * r, size_t n, enum object_kind kind)
{
    for (size_t i = 0; i < n; i++) {
        unsigned long type = ELF64_R_TYPE(r[i].r_info);
        const ElfW(Sym) *s = &d->symtab[ELF64_R_SYM(r[i].r_info)];
        if ((type != GOT_JUMP_SLOT && type != GOT_GLOB_DAT && type != GOT_ABS64) ||
            s->st_shndx != SHN_UNDEF || r[i].r_addend != 0)
            continue;
        const char *nm = d->strtab + s->st_name;
        void *to = replacement(kind, d->search_path, nm);
        uintptr_t at = info->dlpi_addr + r[i].r_offset;
        if (!to ||
            (!in_segment(info, at, PT_LOAD, true) && !in_segment(info, at, PT_GNU_RELRO, false)))
            continue;
        void **slot = (void **)at;
        void *now = *slot;
        bool lazy = type == GOT_JUMP_SLOT && in_segment(info, (uintptr_t)now, PT_LOAD, false);
        if (now != to && (lazy || now == bound(nm)))
            __atomic_store_n(slot, to, __ATOMIC_RELEASE);
    }
}

/* The object's read-only-after-relocation range is made writable while it is patched. Its
 * end is rounded down, as the loader does: a page it shares with data stays writable. */
static void relro(const struct dl_phdr_info *info, int prot)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_GNU_RELRO)
            continue;
        uintptr_t start = (info->dlpi_addr + p->p_vaddr) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + p->p_vaddr + p->p_memsz) & ~(page - 1);
        if (end > start)
            mprotect((void *)start, end - start, prot);
    }
}

static const char *base_name(const struct dl_phdr_info *info)
{
    const char *nm = info->dlpi_name ? info->dlpi_name : "";
    return strrchr(nm, '/') ? strrchr(nm, '/') + 1 : nm;
}

/* Not patched: the shim and testfence's library (their own calls are testfence's, not the
 * test's), libc and the loader (their calls inside libc do not go through a GOT anyway). */
static bool skipped(const struct dl_phdr_info *info, uintptr_t self)
{
    const char *base = base_name(info);
    return info->dlpi_addr == self || !strncmp(base, "libtestfence", 12) ||
           !strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
           !strncmp(base, "linux-vdso", 10);
}

static enum object_kind kind_of(const struct dl_phdr_info *info)
{
    const char *base = base_name(info);
    if (!strncmp(base, "_ctypes.", 8) || !strncmp(base, "_cffi_backend.", 14))
        return OBJ_FFI;
    if (!info->dlpi_name || !info->dlpi_name[0] || !strncmp(base, "libpython", 9))
        return OBJ_LOADER; /* the executable has no name here */
    return OBJ_PLAIN;
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *self)
{
    (void)size;
    struct dynamic d;
    for (size_t i = 0; i < pt.nseen; i++)
        if (pt.seen[i] == info->dlpi_addr)
            return 0;
    if (skipped(info, (uintptr_t)self) || !read_dynamic(info, &d))
        return 0;
    if (pt.nseen == pt.cap) {
        size_t cap = pt.cap ? 2 * pt.cap : 256;
        uintptr_t *grown = realloc(pt.seen, cap * sizeof *grown);
        if (grown) {
            pt.seen = grown;
            pt.cap = cap;
        }
    }
    if (pt.nseen < pt.cap) /* else (out of memory) patched again at the next pass: harmless */
        pt.seen[pt.nseen++] = info->dlpi_addr;
    enum object_kind kind = kind_of(info);
    relro(info, PROT_READ | PROT_WRITE);
    patch_relocs(info, &d, d.jmprel, d.jmprelsz / sizeof(ElfW(Rela)), kind);
    patch_relocs(info, &d, d.rela, d.relasz / sizeof(ElfW(Rela)), kind);
    relro(info, PROT_READ);
    return 0;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (info->dlpi_addr != pt.self)
        return 0;
    pt.adds = info->dlpi_adds;
    pt.subs = info->dlpi_subs;
    *(bool *)found = own_functions(info) == 0;
    return 1;
}

/* Anything loaded since the last pass? An object unloaded meanwhile may have left its
 * address to a new one: then every object is looked at again. */
static int counters(struct dl_phdr_info *info, size_t size, void *changed)
{
    (void)size;
    *(bool *)changed = info->dlpi_adds != pt.adds || info->dlpi_subs != pt.subs;
    if (info->dlpi_subs != pt.subs)
        pt.nseen = 0;
    pt.adds = info->dlpi_adds;
    pt.subs = info->dlpi_subs;
    return 1; /* the counters are the same in every entry: the first is enough */
}

static void patch_all(void)
{
    dl_iterate_phdr(patch_object, (void *)pt.self);
}

int shim_patch_start(void)
{
    bool found = false;
    Dl_info me;
    if (pt.on)
        return 0;
    if (!dladdr((void *)shim_patch_start, &me)) /* outside dl_iterate_phdr: it takes a lock */
        return -1;
    pt.self = (uintptr_t)me.dli_fbase;
    dl_iterate_phdr(find_self, &found);
    if (!found)
        return -1;
    look_up_bound();
    pt.on = true;
    shim_real_from_default();
    patch_all();
    return 0;
}

__attribute__((visibility("default"))) int testfence_shim_patchable(void)
{
    return 1;
}

__attribute__((visibility("default"))) void testfence_shim_rescan(void)
{
    bool changed = false;
    if (!__atomic_load_n(&pt.on, __ATOMIC_ACQUIRE))
        return;
    dl_iterate_phdr(counters, &changed);
    if (changed)
        patch_all();
}

#else /* neither x86_64 nor aarch64: no GOT layout known here */

int shim_patch_start(void)
{
    return -1;
}

__attribute__((visibility("default"))) int testfence_shim_patchable(void)
{
    return 0;
}

__attribute__((visibility("default"))) void testfence_shim_rescan(void) {}

#endif

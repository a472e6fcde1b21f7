#include "places.h"
#include "platform.h"

#include "path.h"
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void places_init(struct places *p)
{
    memset(p, 0, sizeof *p);
    p->artifacts_fd = -1;
    p->tmp.fd = p->tmp.userfd = -1;
    p->wsfd.dir = p->wsfd.hold = -1;
}

/* A declared output that is missing: a file is created empty (the Landlock rule is on the
 * file itself, so it must exist), a directory with its parents. Its path was resolved when
 * planned, so it holds no link: it is walked from / one component at a time, never
 * following one (a test may have planted one since, in a directory output or the writable
 * set). An existing file is left as it is. */
static int create_output(const struct policy_entry *e, tf_err *err)
{
    char parent[PATH_MAX];
    path_dirname(parent, sizeof parent, e->path);
    const char *below;
    int root = platform_open_top(e->is_dir ? e->path : parent, &below);
    if (root < 0)
        return tf_errnof(err, errno, "cannot open the top of %s", e->path);
    int dfd = walk_path_dir(root, "", below, 0755, err);
    close(root);
    if (dfd < 0 || e->is_dir) {
        if (dfd >= 0)
            close(dfd);
        return dfd < 0 ? -1 : 0;
    }
    int fd = openat(dfd, strrchr(e->path, '/') + 1,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = fd < 0 && errno != EEXIST
                 ? tf_errnof(err, errno, "cannot create the output %s", e->path)
                 : 0;
    if (fd >= 0)
        close(fd);
    close(dfd);
    return rc;
}

int places_create(struct places *p, const struct plan *pl, tf_err *err)
{
    places_init(p);
    p->opened = true;
    p->tmp = pl->tmp; /* the planned paths; created here */
    p->artifacts_fd = plan_open_artifacts(pl, pl->ws.artifacts, true, err);
    if (p->artifacts_fd < 0 || runtmp_create(&p->tmp, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->policy.n; i++)
        if (pl->policy.entries[i].origin == POLICY_OUTPUT &&
            create_output(&pl->policy.entries[i], err) < 0)
            return -1;
    return 0;
}

void places_prune(struct places *p, const struct plan *pl, unsigned retain, bool tmp,
                  const atomic_bool *ended, FILE *warn)
{
    struct ws_pruned pr;
    tf_err err = {0};
    if (p->artifacts_fd >= 0 &&
        ws_prune(p->artifacts_fd, pl->ws.artifacts, retain, warn, &pr, &err) < 0)
        fprintf(warn, "testfence: warning: old runs were not pruned: %s\n", err.msg);
    if (tmp)
        runtmp_prune(&p->tmp, time(NULL), ended);
}

bool places_exist(const struct plan *pl)
{
    tf_err ignored = {0};
    int fd = plan_open_artifacts(pl, pl->ws.artifacts, false, &ignored);
    if (fd < 0)
        return false;
    close(fd);
    for (size_t i = 0; i < pl->policy.n; i++)
        if (pl->policy.entries[i].origin == POLICY_OUTPUT &&
            faccessat(AT_FDCWD, pl->policy.entries[i].path, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
            return false;
    return true;
}

int places_workspace(struct places *p, const struct plan *pl, tf_err *err)
{
    if (ws_create(&pl->ws, p->artifacts_fd, &p->wsfd, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->cfg.nfiles; i++)
        if (ws_add_file(p->wsfd.dir, pl->cfg.files[i].name, pl->cfg.files[i].value, err) < 0)
            return -1;
    return 0;
}

int places_finish_tmp(struct places *p, enum runtmp_end end, tf_err *err)
{
    if (end == RUNTMP_REMOVED)
        return runtmp_remove(&p->tmp, err);
    int rc = end == RUNTMP_KEPT ? runtmp_keep(&p->tmp, err) : runtmp_keep_failed(&p->tmp, err);
    runtmp_close(&p->tmp);
    return rc;
}

void places_close(struct places *p)
{
    if (p->opened) {
        runtmp_close(&p->tmp);
        ws_close(&p->wsfd);
        if (p->artifacts_fd >= 0)
            close(p->artifacts_fd);
    }
    places_init(p);
}

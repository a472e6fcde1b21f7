#!/usr/bin/env python3
"""Where `testfence run -- true` spends its time, phase by phase.

usage: bench/phases.py [RUNS]   (from a checkout; builds an instrumented copy in a temp dir)

It copies HEAD into a temporary worktree, puts a timing point (CLOCK_MONOTONIC, printed to
stderr when TT=1) at each step of a run - in the parent, in the namespace's init and in the
command's child before exec - builds it, runs `testfence run -- true` RUNS times in a
throwaway project and prints the median and mean microseconds from each point to the next. A point
whose anchor text is gone from the source is reported, not silently skipped.
"""
import os, shutil, statistics, subprocess, sys, tempfile

POINTS = {
    "src/cli/cmd_run.c": ('#include "cmds.h"', [
        ("    int rc = session_plan(&s, &req, err);", "start", "before"),
        ("    int rc = session_plan(&s, &req, err);", "planned", "after"),
        ("               (rc = session_start(&s, err)) == 0) {\n", "prepared", "after"),
        ("    session_free(&s);\n", "freed", "after"),
    ]),
    "src/linux/session.c": ('#include "session.h"', [
        ("    if (places_create(&s->places, &s->pl, err) < 0)", "hazards_checked", "before"),
        ("    s->guard = fenced && !in_process", "places_made", "before"),
        ("    if (fenced && (s->ruleset_fd =", "channel_open", "before"),
        ("    if (places_workspace(&s->places, &s->pl, err) < 0)", "ready_start", "before"),
        ("    diag_unfinished(s->places.artifacts_fd", "workspace_made", "before"),
        ("    return s->channel >= 0 ? start_diag(s, err) : 0;", "unfinished_told", "before"),
        ("    return s->channel >= 0 ? start_diag(s, err) : 0;", "ready_done", "before"),
        ("    bool planted = s->backend != SESSION_NONE", "command_done", "before"),
        ("left_hazards(s, out) > 0;", "pruned_and_left_scanned", "after"),
        ("    s->reported = true;\n    return diag_finish", "finishing", "before"),
    ]),
    "src/linux/spawn.c": ('#include "spawn.h"', [
        ("    pid_t pid = open_channels(o, &set, &ch, err) < 0 ? -2 : start(o, &old, tty, &ch);", "spawn", "before"),
        ("    pid_t pid = open_channels(o, &set, &ch, err) < 0 ? -2 : start(o, &old, tty, &ch);", "cloned", "after"),
        ("    int e = mountns_enter(o->ns, fds, nfds, &step, &fatal);", "init_started", "before"),
        ("    int e = mountns_enter(o->ns, fds, nfds, &step, &fatal);", "view_mounted", "after"),
        ("    install_filters(o, errfd, guardsock);", "child_fenced", "before"),
        ("    install_filters(o, errfd, guardsock);", "filter_installed", "after"),
        ("    execvpe(o->argv[0], o->argv, o->envp);", "exec", "before"),
        ("        if (rc == 0 && o->on_started)", "parent_saw_exec", "before"),
        ("    reaper_sweep(1, o->test_env, send_leftover, &ch->status[1]);", "command_exited", "before"),
        ("    reaper_sweep(1, o->test_env, send_leftover, &ch->status[1]);", "init_swept", "after"),
        ("        if (said)\n            reap_later(o, pid);", "init_said", "before"),
    ]),
}

TT_H = """#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static inline void tt(const char *l)
{
    struct timespec n;
    clock_gettime(CLOCK_MONOTONIC, &n);
    if (getenv("TT"))
        fprintf(stderr, "TT %s %.1f\\n", l, n.tv_sec * 1e6 + n.tv_nsec / 1e3);
}
"""

def instrument(tree):
    with open(os.path.join(tree, "tt.h"), "w") as f:
        f.write(TT_H)
    for path, (include, points) in POINTS.items():
        p = os.path.join(tree, path)
        s = open(p).read()
        s = s.replace(include, include + '\n#include "%s/tt.h"' % tree, 1)
        for anchor, label, where in points:
            if anchor not in s:
                sys.exit("bench/phases.py: %s: the anchor of %r is gone; update POINTS" % (path, label))
            call = 'tt("%s");' % label
            s = s.replace(anchor, call + anchor if where == "before" else anchor + call, 1)
        open(p, "w").write(s)

def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    top = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    tmp = tempfile.mkdtemp(prefix="tf-phases-")
    try:
        tree = os.path.join(tmp, "src")
        subprocess.check_call(["git", "-C", top, "worktree", "add", "-q", "--detach", tree, "HEAD"])
        instrument(tree)
        b = os.path.join(tmp, "build")
        subprocess.check_call(["cmake", "-S", tree, "-B", b, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                              stdout=subprocess.DEVNULL)
        subprocess.check_call(["cmake", "--build", b, "-j2", "--target", "testfence", "testfence_preload"],
                              stdout=subprocess.DEVNULL)
        proj = os.path.join(tmp, "proj")
        os.makedirs(os.path.join(proj, "tests"))
        os.makedirs(os.path.join(proj, ".git"))
        sums, order, totals = {}, [], []
        for _ in range(runs):
            r = subprocess.run([os.path.join(b, "testfence"), "run", "--", "true"], cwd=proj,
                               env=dict(os.environ, TT="1"), stderr=subprocess.PIPE, text=True)
            pts = sorted((float(t), l) for _, l, t in
                         (x.split() for x in r.stderr.splitlines() if x.startswith("TT ")))
            for (t0, _), (t1, l) in zip(pts, pts[1:]):
                if l not in sums:
                    order.append(l)
                sums.setdefault(l, []).append(t1 - t0)
            totals.append(pts[-1][0] - pts[0][0])
        print("| from the previous point to | median µs | mean µs |\n|---|---|---|")
        for l in order:
            print("| %s | %.0f | %.0f |" % (l, statistics.median(sums[l]), statistics.mean(sums[l])))
        print("| **total, start to freed** | %.0f | %.0f |" % (statistics.median(totals),
                                                           statistics.mean(totals)))
    finally:
        subprocess.call(["git", "-C", top, "worktree", "remove", "--force", os.path.join(tmp, "src")])
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Run real projects' test suites bare and under testfence, and compare them.

    realsuites.py checkout [NAME...]          clone each project into /work/ext/realsuites/<name> at its
                                              pinned commit, install its Debian packages, set it up
    realsuites.py run [--build DIR] [--autoload] [--modes M,M] [NAME...]
                                              run each suite in every mode, print the comparison
    realsuites.py diff STAMP                  compare the results of _results/STAMP again

The projects are in manifest.toml beside this script; their code never enters this
repository. Checkouts come from the search tool's snapshots under /work/.mirror
(`fetch github:<owner>/<name>` first); docs/compatibility.md has the numbers.

Modes, in this order, on the same checkout (so the second run sees the first's leftovers):
  bare        the suite as its users run it
  fenced      testfence run -- <suite>
  fenced2     the same again: a second run must work like the first
  plugin      pytest -p testfence (pytest projects only)
  plugin-n2   pytest -p testfence -p xdist -n 2 (pytest projects only)
  bare2       bare again, after all that: the fence must leave nothing that breaks it
and, only when named in --modes:
  bare-n2     pytest -p xdist -n 2, unfenced (pytest projects only; a control: xdist's own
              effect on the suite)
  protected   testfence run --config testfence-protect.toml -- <suite>: the project's
              config with protect = "tracked" (issue 31: would the suite notice its own
              tracked files bound read-only?); the count of those files is in results.json

pytest runs with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 and explicit -p, so the comparison does
not depend on which pytest plugins the machine has; --autoload runs them with the
machine's plugins (python3-pytest-benchmark is installed for that).

A pytest suite runs with -v, so every test's outcome is in its log (PASSED, FAILED,
SKIPPED, XFAIL, XPASS, ERROR; "FAILED+ERROR" when a teardown errs after a failure):
each mode is compared with bare test by test, not only by its failing set, so a test
skipped or xfailed here and passed bare counts as a difference. A TEST_SANDBOX_VIOLATION
line anywhere counts as one too, and so does a blocked write in `testfence run`'s summary. The differences go to diffs.txt beside results.json.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# Our own directory: /work/ext is shared with other work, which checks out projects by the
# same names (pytest, say). REALSUITES_EXT puts the checkouts elsewhere: another file system
# (bench/suites.sh on a journaled ext4, docs/performance.md).
EXT = os.environ.get("REALSUITES_EXT") or "/work/ext/realsuites"
MIRROR = "/work/.mirror"
RESULTS = os.path.join(EXT, "_results")
PYTHON = "/usr/bin/python3"
ALL_MODES = ["bare", "fenced", "fenced2", "plugin", "plugin-n2", "bare2"]
CONTROL_MODES = ["bare-n2", "protected"]
# The protected mode's config, beside the project's (excluded from git status like it).
PROTECT_CONFIG = "testfence-protect.toml"
AUTOLOAD_DEBS = ["python3-pytest-benchmark"]


def load_manifest():
    with open(os.path.join(HERE, "manifest.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def pick(projects, names):
    if not names:
        return projects
    known = {p["name"]: p for p in projects}
    missing = [n for n in names if n not in known]
    if missing:
        sys.exit("realsuites: unknown project(s): %s (see manifest.toml)" % " ".join(missing))
    return [known[n] for n in names]


def sh(cmd, cwd=None, check=True, **kw):
    r = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), **kw)
    if check and r.returncode != 0:
        raise SystemExit("realsuites: failed (%d): %s" % (r.returncode, cmd))
    return r


# Packages whose command may come from elsewhere (Node.js from its own repository):
# present when the command is, whatever dpkg says (as scripts/deps.sh).
COMMAND_OF = {"nodejs": "node", "npm": "npm"}


def apt_install(debs):
    missing = []
    for d in debs:
        if d in COMMAND_OF and shutil.which(COMMAND_OF[d]):
            continue
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", d], capture_output=True, text=True)
        if r.stdout.strip() != "install ok installed":
            missing.append(d)
    if not missing:
        return
    if os.geteuid() != 0:
        sys.exit("realsuites: missing Debian packages; as root: apt-get install " + " ".join(missing))
    print("realsuites: apt-get install " + " ".join(missing), file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # The machine is shared: another job's apt may hold dpkg's lock; wait for it.
    sh(["apt-get", "-o", "DPkg::Lock::Timeout=1200", "install", "-y", "-qq", "--no-install-recommends"]
       + missing, env=env)


def mirror_of(p):
    gitdir = os.path.join(MIRROR, p["repo"].replace("/", "+"), "repo")
    if not os.path.isdir(gitdir):
        sys.exit("realsuites: no snapshot of %s at %s: fetch github:%s first" % (p["repo"], gitdir, p["repo"]))
    return gitdir


def write_config(p, dest):
    """The project's testfence.toml and the recipe's files, kept out of its git status."""
    files = dict(p.get("files", {}))
    if "config" in p:
        files["testfence.toml"] = p["config"].strip() + "\n"
    files[PROTECT_CONFIG] = p.get("config", "").strip() + '\nprotect = "tracked"\n'
    exclude = os.path.join(dest, ".git", "info", "exclude")
    os.makedirs(os.path.dirname(exclude), exist_ok=True)
    with open(exclude, "a+") as f:
        f.seek(0)
        have = f.read().splitlines()
        for name, text in files.items():
            with open(os.path.join(dest, name), "w") as g:
                g.write(text)
            if "/" + name not in have:
                f.write("/" + name + "\n")


def checkout(p):
    dest = os.path.join(EXT, p["name"])
    apt_install(p.get("debs", []))
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(EXT, exist_ok=True)
    sh(["git", "clone", "-q", "--no-checkout", mirror_of(p), dest])
    sh(["git", "-c", "advice.detachedHead=false", "checkout", "-q", p["commit"]], cwd=dest)
    write_config(p, dest)
    if p.get("setup"):
        print("realsuites: %s: %s" % (p["name"], p["setup"]), file=sys.stderr)
        sh(p["setup"], cwd=dest, env=suite_env(p, None, False))
    print("realsuites: %s ready at %s" % (p["name"], dest), file=sys.stderr)


# ---- running ---------------------------------------------------------------

def suite_env(p, mode, autoload, build=None, plugin=None):
    env = dict(os.environ)
    # Users' machines write bytecode; this one is told not to. Measure what users get.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for k in ("TESTFENCE_WORKSPACE", "TESTFENCE_PLUGIN", "TESTFENCE_RUN_ID", "PYTEST_ADDOPTS"):
        env.pop(k, None)
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    else:
        env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    # {checkout}: the checkout's absolute path, for what a suite's subprocesses need from
    # another working directory (a pytest started in a temp dir by pytester).
    dest = os.path.join(EXT, p["name"])
    env.update({k: v.replace("{checkout}", dest) for k, v in p.get("env", {}).items()})
    if mode and mode.startswith("plugin"):
        env["PYTHONPATH"] = os.pathsep.join(x for x in (plugin, env.get("PYTHONPATH")) if x)
        env["TESTFENCE_LIBRARY"] = os.path.join(build, "libtestfence.so")
    return env


def without_plugins(words):
    """WORDS less each "-p NAME": with autoload the machine's plugins are loaded anyway,
    and naming one again is an error ("Plugin already registered")."""
    out = []
    for w in words:
        if out and out[-1] == "-p":
            out.pop()
        else:
            out.append(w)
    return out


def command(p, mode, build, autoload):
    if p["runner"] == "pytest":
        # -v: one line per test with its outcome (parse_outcomes).
        args = [PYTHON, "-m", "pytest", "-rfE", "-v"]
        if mode.startswith("plugin"):
            args += ["-p", "testfence"]
        if mode.endswith("-n2"):
            args += ["-n", "2"] if autoload else ["-p", "xdist", "-n", "2"]
        test = p["test"].split()
        cmd = args + (without_plugins(test) if autoload else test)
    else:
        cmd = ["sh", "-c", p["test"]]
    if mode.startswith("fenced"):
        cmd = [os.path.join(build, "testfence"), "run", "--"] + cmd
    if mode == "protected":
        cmd = [os.path.join(build, "testfence"), "run", "--config", PROTECT_CONFIG, "--"] + cmd
    return cmd


def writable_dirs(p):
    """The project's writable entries (the built-in default: tests)."""
    m = re.search(r'writable\s*=\s*\[([^]]*)\]', p.get("config", ""))
    return re.findall(r'"([^"]+)"', m.group(1)) if m else ["tests"]


def tracked_count(p):
    """How many files git tracks under the writable set: what protect = "tracked" binds."""
    dest = os.path.join(EXT, p["name"])
    r = subprocess.run(["git", "ls-files", "-z", "--"] + writable_dirs(p), cwd=dest,
                       capture_output=True)
    return r.stdout.count(b"\0") if r.returncode == 0 else None


def run_one(p, mode, build, autoload, log, plugin):
    dest = os.path.join(EXT, p["name"])
    env = suite_env(p, mode, autoload, build, plugin)
    start = time.time()
    with open(log, "wb") as out:
        proc = subprocess.Popen(command(p, mode, build, autoload), cwd=dest, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            status = proc.wait(timeout=p.get("timeout", 1800))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGTERM)  # testfence forwards it to the command's group
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            status = "timeout"
    with open(log, "r", errors="replace") as f:
        text = f.read()
    failing, counts = PARSERS[p["runner"]](text)
    outcomes = parse_outcomes(text) if p["runner"] == "pytest" else {}
    extra = {"protected_files": tracked_count(p)} if mode == "protected" else {}
    return {**extra, "mode": mode, "status": status, "seconds": round(time.time() - start, 1),
            "failing": sorted(failing), "counts": counts, "outcomes": outcomes,
            "violations": len(re.findall(r"^.*TEST_SANDBOX_VIOLATION: ", text, re.M)),
            "blocked": blocked_writes(text), "log": log}


def blocked_writes(text):
    """Writes `testfence run` says it blocked, from its summary: the shim of a run prints no
    TEST_SANDBOX_VIOLATION line, so a run whose suite failed anyway (exit 1, not 120) would
    otherwise hide them."""
    n = 0
    for out, prot in re.findall(r"testfence: (\d+) (?:more )?writes? outside the writable set"
                                r"(?: and (\d+) changes? to your protected test files)? (?:was|were) "
                                r"blocked", text):
        n += int(out) + int(prot or 0)
    # protect = "tracked": refused changes to the user's own files, said apart (issue 31)
    for prot in re.findall(r"testfence: (\d+) changes? to your protected test files \(protect in "
                           r"the config\) (?:was|were) refused", text):
        n += int(prot)
    return n


def parse_pytest(text):
    failing = set()
    for m in re.finditer(r"^(FAILED|ERROR) (.+?)(?: - .*)?$", text, re.M):
        failing.add(m.group(2).strip())
    counts = {}
    last = re.findall(r"^=+ (.*?) in [\d.]+s(?: \([\d:]+\))? =+$", text, re.M)
    if last:
        for n, what in re.findall(r"(\d+) (\w+)", last[-1]):
            counts[what] = int(n)
    return failing, counts


OUTCOME = r"(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)"
# pytest -v: "tests/t.py::test_a[x y] SKIPPED (reason)        [ 42%]";
# under xdist: "[gw1] [ 42%] SKIPPED tests/t.py::test_a[x y]".
VERBOSE_LINE = re.compile(r"^(\S.*?) %s(?: \(.*\))?\s+\[\s*\d+%%\]\s*$" % OUTCOME, re.M)
XDIST_LINE = re.compile(r"^\[gw\d+\] \[\s*\d+%%\] %s (.+?)\s*$" % OUTCOME, re.M)


# Where the run's progress ends: a failure's report can quote a nested pytest's -v lines.
REPORT_SECTION = re.compile(r"^=+ (FAILURES|ERRORS|warnings summary|short test summary info) =+$", re.M)


def parse_outcomes(text):
    """Each test's outcome from pytest -v output: node id -> "PASSED", "FAILED+ERROR"..."""
    m = REPORT_SECTION.search(text)
    text = text[:m.start()] if m else text
    phases = {}
    for m in VERBOSE_LINE.finditer(text):
        phases.setdefault(m.group(1), []).append(m.group(2))
    for m in XDIST_LINE.finditer(text):
        phases.setdefault(m.group(2), []).append(m.group(1))
    return {t: "+".join(o) for t, o in phases.items()}


def parse_ctest(text):
    failing = set(re.findall(r"^\s*\d+ - (\S+) \(", text, re.M))
    m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", text)
    counts = {"failed": int(m.group(2)), "total": int(m.group(3))} if m else {}
    return failing, counts


def parse_make(text):
    failing = set(m.group(2) for m in re.finditer(r"^(FAIL|ERROR|XPASS): (\S+)", text, re.M))
    counts = {k.lower(): int(v) for k, v in re.findall(r"^# (TOTAL|PASS|FAIL|ERROR|SKIP): +(\d+)", text, re.M)}
    return failing, counts


def parse_git(text):
    """prove's summary: "t0001-init.sh (Wstat: ...)" then "  Failed test(s): 3, 5-6"."""
    failing = set()
    script = None
    for line in text.splitlines():
        m = re.match(r"^(t\d{4}-\S+\.sh)\s+\(Wstat", line)
        if m:
            script = m.group(1)
            failing.add(script)
            continue
        m = re.match(r"^\s+Failed tests?:\s+(.*)", line)
        if m and script:
            failing.discard(script)
            failing.update("%s#%s" % (script, t.strip()) for t in m.group(1).split(","))
    counts = {}
    m = re.search(r"Files=(\d+), Tests=(\d+)", text)
    if m:
        counts = {"files": int(m.group(1)), "tests": int(m.group(2))}
    return failing, counts


def parse_npm(text):
    """mocha's spec reporter: "N passing", "N failing", then "  1) suite\\n       test:"."""
    counts = {k: int(n) for n, k in re.findall(r"^\s+(\d+) (passing|failing|pending)", text, re.M)}
    failing = set()
    tail = text.split(" failing", 1)[1] if " failing" in text else ""
    for m in re.finditer(r"^\s+\d+\) (.+)\n((?:\s{5,}.+\n)*?)\s+\S.*:\s*$", tail, re.M):
        failing.add(m.group(1).strip())
    if re.search(r"^\s*standard: ", text, re.M):
        failing.add("(lint: standard)")
    return failing, counts


PARSERS = {"pytest": parse_pytest, "ctest": parse_ctest, "make": parse_make, "git": parse_git,
           "npm": parse_npm}


def artifacts_dirs(p):
    """Where testfence's runs leave things, removed before the first mode: every run of
    this harness starts as a user's first run would."""
    dest = os.path.join(EXT, p["name"])
    out = [os.path.join(dest, "tests", "artifacts")]
    m = re.search(r'writable\s*=\s*\["([^"]+)"', p.get("config", ""))
    if m:
        out.append(os.path.join(dest, m.group(1), "artifacts"))
    return out


def run_project(p, modes, build, autoload, outdir, plugin):
    write_config(p, os.path.join(EXT, p["name"]))
    for d in artifacts_dirs(p):
        shutil.rmtree(d, ignore_errors=True)
    results = []
    for mode in modes:
        if (mode.startswith("plugin") or mode.endswith("-n2")) and p["runner"] != "pytest":
            continue
        log = os.path.join(outdir, "%s.%s.log" % (p["name"], mode))
        r = run_one(p, mode, build, autoload, log, plugin)
        results.append(r)
        print("  %-14s %-10s status %-7s %4d failing  %3d violation lines  %6.0fs  %s%s" % (
            p["name"], mode, r["status"], len(r["failing"]), r["violations"], r["seconds"],
            " ".join("%s=%s" % kv for kv in sorted(r["counts"].items())),
            "  (%d outcomes)" % len(r["outcomes"]) if p["runner"] == "pytest" else "")
            + ("  (%s files protected)" % r["protected_files"] if "protected_files" in r else ""),
            flush=True)
    return results


def same_ids(mine, theirs):
    """MINE's outcomes keyed by THEIRS' ids: an xdist worker's stray stderr at exit (an
    interpreter's ResourceWarning) can land on the line of its last test, "[gw0] [100%]
    PASSED t.py::test_a[] sys:1: ResourceWarning: ...": that id is the bare one it starts with."""
    out = {}
    for t, o in mine.items():
        if t not in theirs:
            t = next((b for b in theirs if b not in mine and t.startswith(b + " ")), t)
        out[t] = o
    return out


def compare(p, results):
    """Every difference from the bare run, one line each: exit status, violation lines,
    each test whose outcome differs (pytest), each failing test or script not failing
    bare and back (the failing sets: other runners, and pytest's collection errors)."""
    name = p["name"]
    diffs = []
    for r in results:
        if r["violations"]:
            diffs.append("%s %s: %d TEST_SANDBOX_VIOLATION line(s)" % (name, r["mode"], r["violations"]))
        if r.get("blocked"):
            diffs.append("%s %s: testfence's summary: %d blocked write(s)" % (name, r["mode"], r["blocked"]))
    base = next((r for r in results if r["mode"] == "bare"), None)
    if not base:
        return diffs
    if p["runner"] == "pytest" and base["counts"] and not base["outcomes"]:
        diffs.append("%s bare: no per-test outcome in the log (-q in its addopts?)" % name)
    for r in results:
        if r is base:
            continue
        if r["status"] != base["status"]:
            diffs.append("%s %s: exit %s, bare %s" % (name, r["mode"], r["status"], base["status"]))
        theirs = base.get("outcomes", {})
        mine = same_ids(r.get("outcomes", {}), theirs)
        for t in sorted(set(mine) | set(theirs)):
            if mine.get(t) != theirs.get(t):
                diffs.append("%s %s: %s: %s, bare %s" % (name, r["mode"], t, mine.get(t, "absent"),
                                                          theirs.get(t, "absent")))
        new = sorted(set(r["failing"]) - set(base["failing"]) - set(mine) - set(theirs))
        gone = sorted(set(base["failing"]) - set(r["failing"]) - set(mine) - set(theirs))
        for t in new:
            diffs.append("%s %s: fails only here: %s" % (name, r["mode"], t))
        for t in gone:
            diffs.append("%s %s: fails only bare: %s" % (name, r["mode"], t))
    return diffs


def cmd_diff(args):
    """Compare a past run's results again (after a change to the comparison)."""
    outdir = os.path.join(RESULTS, args.stamp)
    with open(os.path.join(outdir, "results.json")) as f:
        summary = json.load(f)
    known = {p["name"]: p for p in load_manifest()}
    for results in summary.values():
        for r in results:
            if "blocked" not in r and os.path.exists(r["log"]):
                with open(r["log"], errors="replace") as f:
                    r["blocked"] = blocked_writes(f.read())
    diffs = [d for name, results in summary.items() for d in compare(known[name], results)]
    with open(os.path.join(outdir, "diffs.txt"), "w") as f:
        f.writelines(d + "\n" for d in diffs)
    print("%d difference(s) from bare (results in %s):" % (len(diffs), outdir))
    for d in diffs:
        print("  " + d)


def cmd_checkout(args):
    for p in pick(load_manifest(), args.names):
        checkout(p)


def cmd_run(args):
    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "testfence"), os.X_OK):
        sys.exit("realsuites: no testfence in %s (build it, or pass --build DIR)" % build)
    modes = args.modes.split(",") if args.modes else ALL_MODES
    unknown = [m for m in modes if m not in ALL_MODES + CONTROL_MODES]
    if unknown:
        sys.exit("realsuites: unknown mode(s): %s" % " ".join(unknown))
    if args.autoload:
        apt_install(AUTOLOAD_DEBS)
    stamp = time.strftime("%Y%m%dT%H%M%S") + ("-autoload" if args.autoload else "")
    outdir = os.path.join(RESULTS, stamp)
    os.makedirs(outdir, exist_ok=True)
    summary = {}
    diffs = []
    for p in pick(load_manifest(), args.names):
        if not os.path.isdir(os.path.join(EXT, p["name"])):
            print("realsuites: %s is not checked out (realsuites.py checkout %s)" % (p["name"], p["name"]),
                  file=sys.stderr)
            continue
        results = run_project(p, modes, build, args.autoload, outdir, os.path.abspath(args.plugin))
        summary[p["name"]] = results
        d = compare(p, results)
        diffs += d
        with open(os.path.join(outdir, "results.json"), "w") as f:
            json.dump(summary, f, indent=1)
        with open(os.path.join(outdir, "diffs.txt"), "w") as f:
            f.writelines(d + "\n" for d in diffs)
    print("\n%d difference(s) from bare (results in %s):" % (len(diffs), outdir))
    for d in diffs:
        print("  " + d)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("checkout")
    c.add_argument("names", nargs="*")
    c.set_defaults(fn=cmd_checkout)
    r = sub.add_parser("run")
    r.add_argument("--build", default=os.path.join(REPO, "build"))
    r.add_argument("--plugin", default=os.path.join(REPO, "python"),
                   help="the directory holding testfence.py (default: this checkout's python/)")
    r.add_argument("--autoload", action="store_true",
                   help="let pytest load the machine's plugins (installs python3-pytest-benchmark)")
    r.add_argument("--modes", help="comma-separated subset of " + ",".join(ALL_MODES + CONTROL_MODES))
    r.add_argument("names", nargs="*")
    r.set_defaults(fn=cmd_run)
    d = sub.add_parser("diff", help="compare a past run's results.json again, rewrite its diffs.txt")
    d.add_argument("stamp", help="the run's directory under " + RESULTS)
    d.set_defaults(fn=cmd_diff)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()

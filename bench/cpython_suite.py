"""Run a file-heavy subset of CPython's own test suite bare, under testfence,
and under the original request's audit-hook design; compare per-test outcomes,
wall time and CPU time (user + system of everything each run started). Each round
runs every mode, in an order rotated round by round (none always first); the
ratios are the mean's, and the median of the rounds' own ratios.
Usage: /usr/bin/python3 bench/cpython_suite.py TESTFENCE [ROUNDS]
       MODES=bare,testfence (default bare,testfence,audithook)"""
import os
import resource
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

TESTS = ("test_os test_shutil test_tempfile test_pathlib test_zipfile test_tarfile test_glob "
         "test_fileinput test_logging test_sqlite3 test_compileall test_py_compile "
         "test_zipimport").split()
HERE = os.path.dirname(os.path.abspath(__file__))


def outcomes(junit):
    result = {}
    for case in ET.parse(junit).iter("testcase"):
        kind = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                kind = child.tag
        result[f"{case.get('classname')}.{case.get('name')}"] = kind
    return result


def run(mode, tf, proj, junit):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users' machines write bytecode
    cmd = ["/usr/bin/python3.11", "-m", "test", "-j2", "--junit-xml", junit, *TESTS]
    if mode == "testfence":
        cmd = [tf, "run", "--", *cmd]
    elif mode == "audithook":
        # The original design also moved temp files under tests/; without that
        # the hook would (rightly) refuse regrtest's own temp dir.
        tmp = os.path.join(proj, "tests", "artifacts", "audithook-tmp")
        os.makedirs(tmp, exist_ok=True)
        env.update(PYTHONPATH=os.path.join(HERE, "audithook"), AUDITHOOK_ROOT=proj,
                   TMPDIR=tmp, PYTHONPYCACHEPREFIX=os.path.join(proj, "tests", "artifacts", "pycache"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(junit + ".log", "wb") as f:
        f.write(proc.stdout)
    return elapsed, cpu, proc.returncode


def main():
    tf = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    base = tempfile.mkdtemp(prefix="tf-cpython-")
    proj = os.path.join(base, "proj")
    os.makedirs(os.path.join(proj, "tests"))
    os.makedirs(os.path.join(proj, ".git"))
    modes = os.environ.get("MODES", "bare,testfence,audithook").split(",")
    if modes[0] != "bare" or not set(modes) <= {"bare", "testfence", "audithook"}:
        sys.exit("cpython_suite.py: MODES is bare, then testfence and/or audithook")
    times = {m: [] for m in modes}  # (wall, cpu) per round
    results = {}
    for r in range(rounds):
        for mode in modes[r % len(modes):] + modes[:r % len(modes)]:  # drift hits all alike
            junit = os.path.join(proj, "tests", f"{mode}-{r}.xml")
            elapsed, cpu, code = run(mode, tf, proj, junit)
            times[mode].append((elapsed, cpu))
            results[mode] = outcomes(junit) if os.path.exists(junit) else {}
            print(f"round {r} {mode:9s} {elapsed:7.1f} s  cpu {cpu:7.1f} s  exit {code}  "
                  f"{len(results[mode])} tests", flush=True)
    bare = results["bare"]
    print("\nmode       tests  passed  failed  errors  skipped  differ-from-bare  mean-s  ratio"
          "  cpu-s  ratio  median-round-ratio(wall, cpu)")
    for mode, res in results.items():
        counts = {k: sum(1 for v in res.values() if v == k) for k in ("passed", "failure", "error", "skipped")}
        differ = sorted(k for k in set(bare) | set(res) if bare.get(k) != res.get(k))
        mean, cpu = (statistics.mean(t[i] for t in times[mode]) for i in (0, 1))
        ratio = mean / statistics.mean(t[0] for t in times["bare"])
        cratio = cpu / statistics.mean(t[1] for t in times["bare"])
        rounds_w, rounds_c = ([a[i] / b[i] for a, b in zip(times[mode], times["bare"])] for i in (0, 1))
        print(f"{mode:9s} {len(res):6d} {counts['passed']:7d} {counts['failure']:7d} {counts['error']:7d} "
              f"{counts['skipped']:8d} {len(differ):17d} {mean:7.1f} {ratio:6.3f} {cpu:6.1f} "
              f"{cratio:6.3f}  {statistics.median(rounds_w):.3f}, {statistics.median(rounds_c):.3f}")
        for k in differ[:40]:
            print(f"    {k}: bare={bare.get(k)} {mode}={res.get(k)}")
    same = all(results[m] == bare for m in ("testfence",) if m in results)
    shutil.rmtree(base, ignore_errors=True)
    return 0 if same else 1


sys.exit(main())

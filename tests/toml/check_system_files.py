#!/usr/bin/python3
"""check_system_files: every TOML file under the given roots must read as tomllib reads it.

usage: check_system_files.py DECODER ROOT...
Each *.toml file (pyproject.toml included) goes through DECODER --toml=1.0 and through
Python's tomllib (TOML 1.0): both must accept it with equal values, or both reject it.
The default TOML 1.1 mode must then give the same values for every file tomllib accepts.
Exit 77 (skipped) when the roots hold no TOML file at all."""
import datetime
import json
import math
import os
import subprocess
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402


def tag(v):
    """tomllib's value in toml-test's tagged JSON form."""
    if isinstance(v, dict):
        return {k: tag(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tag(x) for x in v]
    if isinstance(v, bool):
        return {"type": "bool", "value": "true" if v else "false"}
    if isinstance(v, int):
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        return {"type": "float", "value": "nan" if math.isnan(v) else repr(v)}
    if isinstance(v, str):
        return {"type": "string", "value": v}
    if isinstance(v, datetime.datetime):
        return {"type": "datetime" if v.tzinfo else "datetime-local", "value": v.isoformat()}
    if isinstance(v, datetime.date):
        return {"type": "date-local", "value": v.isoformat()}
    return {"type": "time-local", "value": v.isoformat()}


def micro(x):
    """tomllib keeps microseconds only; cut our nanoseconds to match."""
    if isinstance(x, dict):
        return {k: micro(v) for k, v in x.items()}
    if isinstance(x, list):
        return [micro(v) for v in x]
    if isinstance(x, tuple) and len(x) == 3 and isinstance(x[2], int) and x[0] != "float":
        return (x[0], x[1], x[2] // 1000 * 1000)
    return x


def ours(decoder, path, version):
    r = subprocess.run([decoder, "--toml=" + version, path], capture_output=True, timeout=60)
    if r.returncode not in (0, 1):
        return "crash", r.stderr.decode(errors="replace")
    if r.returncode:
        return "error", r.stderr.decode(errors="replace").strip()
    return "ok", micro(conformance.norm(json.loads(r.stdout)))


def check(decoder, path):
    """None if we agree with tomllib, else what differs."""
    try:
        with open(path, "rb") as f:
            want = ("ok", micro(conformance.norm(tag(tomllib.load(f)))))
    except tomllib.TOMLDecodeError as e:
        want = ("error", str(e))
    got = ours(decoder, path, "1.0")
    if got[0] != want[0]:
        return "tomllib: %s, ours (1.0): %s" % (want[0], got[1] if got[0] != "ok" else "ok")
    if got[0] == "ok" and got[1] != want[1]:
        return "values differ from tomllib"
    got11 = ours(decoder, path, "1.1")
    if got[0] == "ok" and got11 != got:
        return "TOML 1.1 mode reads it differently: %s" % (got11[0],)
    return None


def toml_files(roots):
    for root in roots:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                p = os.path.join(d, name)
                if name.endswith(".toml") and os.path.isfile(p):
                    yield p


def main():
    decoder, roots = sys.argv[1], sys.argv[2:]
    files = list(toml_files(roots))
    if not files:
        print("check_system_files: SKIPPED: no TOML files under %s" % " ".join(roots))
        return 77
    counts = {"ok": 0, "rejected": 0}
    bad = []
    for p in files:
        why = check(decoder, p)
        if why:
            bad.append("  %s: %s" % (p, why))
            continue
        with open(p, "rb") as f:
            try:
                tomllib.load(f)
                counts["ok"] += 1
            except tomllib.TOMLDecodeError:
                counts["rejected"] += 1
    print("system TOML files: %d checked (%d valid, %d invalid, both as tomllib says), "
          "%d disagree" % (len(files), counts["ok"], counts["rejected"], len(bad)))
    for line in bad[:40]:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

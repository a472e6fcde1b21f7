#!/usr/bin/python3
"""conformance: run the toml-test corpus through tests/toml/decoder and compare.

usage: conformance.py DECODER CORPUS_DIR [REGRESSIONS_DIR]
Valid cases must decode to JSON equal to the expected JSON (floats and date-times
compared by value); invalid cases must be rejected. TOML 1.0 must pass in full (the
exit status says so); the TOML 1.1 figure is reported. Every file in REGRESSIONS_DIR
(inputs that once crashed the parser) must be decoded or rejected without crashing."""
import calendar
import json
import math
import os
import re
import subprocess
import sys

DT = re.compile(r"^(?:(\d{4})-(\d{2})-(\d{2}))?[Tt ]?(?:(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d+))?)?"
                r"([Zz]|[+-]\d{2}:\d{2})?$")


def dt_key(kind, s):
    """A comparable form of a date-time: offset ones become a UTC instant."""
    m = DT.match(s)
    if not m:
        return ("bad", s)
    y, mo, d, h, mi, sec, frac, off = m.groups()
    nanos = int((frac or "0")[:9].ljust(9, "0"))
    parts = [int(x) if x else 0 for x in (y, mo, d, h, mi, sec)]
    if kind != "datetime":
        return (kind, tuple(parts), nanos)
    secs = calendar.timegm(tuple(parts))
    if off and off not in "Zz":
        sign = -1 if off[0] == "-" else 1
        secs -= sign * (int(off[1:3]) * 3600 + int(off[4:6]) * 60)
    return (kind, secs, nanos)


def leaf_key(t, v):
    if t == "float":
        f = float(v)
        return ("float", "nan") if math.isnan(f) else ("float", f)
    if t == "integer":
        return ("integer", int(v))
    if t in ("datetime", "datetime-local", "date-local", "time-local"):
        return dt_key(t, v)
    return (t, v)


def norm(x):
    if isinstance(x, dict):
        if set(x) == {"type", "value"} and isinstance(x["value"], str):
            return leaf_key(x["type"], x["value"])
        return {k: norm(v) for k, v in x.items()}
    if isinstance(x, list):
        return [norm(v) for v in x]
    return x


def decode(decoder, path, version):
    with open(path, "rb") as f:
        return subprocess.run([decoder, "--toml=" + version], stdin=f, capture_output=True,
                              timeout=20)


def run_case(decoder, corpus, rel, version):
    """Returns None if the case passes, else a reason."""
    path = os.path.join(corpus, "tests", rel)
    r = decode(decoder, path, version)
    if r.returncode not in (0, 1):
        return "crashed (status %d): %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])
    if rel.startswith("invalid/"):
        return "accepted invalid TOML" if r.returncode == 0 else None
    if r.returncode != 0:
        return "rejected: " + r.stderr.decode(errors="replace").strip()
    with open(path[:-5] + ".json", encoding="utf-8") as f:
        want = norm(json.load(f))
    try:
        got = norm(json.loads(r.stdout))
    except ValueError as e:
        return "bad JSON from decoder: %s" % e
    return None if got == want else "wrong value: got %s" % r.stdout.decode(errors="replace")[:300]


def run_version(decoder, corpus, version):
    with open(os.path.join(corpus, "tests", "files-toml-" + version + ".0")) as f:
        cases = [l.strip() for l in f if l.strip().endswith(".toml")]
    tally = {"valid": [0, 0], "invalid": [0, 0]}
    failures = []
    for rel in cases:
        kind = rel.split("/")[0]
        why = run_case(decoder, corpus, rel, version)
        tally[kind][1] += 1
        if why is None:
            tally[kind][0] += 1
        else:
            failures.append("  %s: %s" % (rel, why))
    v, i = tally["valid"], tally["invalid"]
    print("TOML %s: valid %d/%d, invalid %d/%d" % (version, v[0], v[1], i[0], i[1]))
    for line in failures[:40]:
        print(line)
    if len(failures) > 40:
        print("  ... and %d more" % (len(failures) - 40))
    return not failures


def run_regressions(decoder, regdir):
    files = sorted(os.listdir(regdir)) if os.path.isdir(regdir) else []
    bad = 0
    for name in files:
        r = decode(decoder, os.path.join(regdir, name), "1.1")
        if r.returncode not in (0, 1):
            bad += 1
            print("  regression %s: status %d" % (name, r.returncode))
    print("regressions: %d replayed, %d crashed" % (len(files), bad))
    return bad == 0


def main():
    decoder, corpus = sys.argv[1], sys.argv[2]
    regdir = sys.argv[3] if len(sys.argv) > 3 else ""
    ok10 = run_version(decoder, corpus, "1.0")
    run_version(decoder, corpus, "1.1")
    okreg = run_regressions(decoder, regdir)
    return 0 if ok10 and okreg else 1


if __name__ == "__main__":
    sys.exit(main())

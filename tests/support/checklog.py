"""checklog: read a run's violations.jsonl strictly and answer questions about it.

usage: checklog.py LOG ops              -> the distinct ops, one per line
       checklog.py LOG tests            -> the distinct test ids (None for none)
       checklog.py LOG pids             -> how many distinct pids
       checklog.py LOG count            -> the number of records
Every line must be a complete, well-formed record; anything else fails."""
import json
import sys

REQUIRED = {"v": int, "time": str, "pid": int, "op": str, "path": str, "resolved": str,
            "errno": int, "error": str, "blocked_by": str, "exe": str, "cmdline": str,
            "truncated": bool}

log, what = sys.argv[1], sys.argv[2]
records = []
with open(log, "rb") as f:
    for n, raw in enumerate(f, 1):
        assert raw.endswith(b"\n"), f"line {n}: no newline"
        assert len(raw) <= 4096, f"line {n}: {len(raw)} bytes"
        r = json.loads(raw)
        for k, t in REQUIRED.items():
            assert isinstance(r.get(k), t), f"line {n}: {k} is {r.get(k)!r}"
        assert r["resolved"].startswith("/") and r["blocked_by"] in ("kernel", "shim")
        assert r["test"] is None or isinstance(r["test"], str)
        records.append(r)
if what == "ops":
    print("\n".join(sorted({r["op"] for r in records})))
elif what == "tests":
    print("\n".join(sorted({str(r["test"]) for r in records})))
elif what == "pids":
    print(len({r["pid"] for r in records}))
elif what == "count":
    print(len(records))
elif what == "dump":
    for r in records:
        print(r["test"], r["op"], r["path"], r["resolved"], r["error"], r["blocked_by"])

#!/usr/bin/env python3
"""Baseline for bench/audit.sh: the original request's regex design.

A list of compiled regexes applied line by line to every test file, with
find_violations(root_dir) and main() with --strict, as the seed specification
("scripts/audit_test_sandbox_violations.py") describes. It exists to be
measured against `testfence audit`, not to be used: it cannot tell code from
comments, docstrings or strings, misses calls split over lines and cannot read
a dir= keyword (see docs/audit.md).
"""
import os
import re
import sys

PATTERNS = [
    ("TF101", re.compile(r"""(?:open|Path)\(\s*['"][\w.\-]+\.(?:toml|json|ini|cfg|yaml|yml|env)['"]\s*(?:\)\s*\.\s*(?:write_text|write_bytes|touch|unlink|open)|,\s*(?:mode\s*=\s*)?['"][rwabxt+]*[wax+])""")),
    ("TF101", re.compile(r"""shutil\.(?:copy2?|copyfile|move)\([^,]+,\s*['"][\w.\-]+\.(?:toml|json|ini)['"]""")),
    ("TF102", re.compile(r"""__file__\)?(?:\.resolve\(\))?\.parent\.parent|os\.path\.dirname\(\s*os\.path\.dirname\(.*__file__|__file__.*['"]\.\.['"]""")),
    ("TF103", re.compile(r"""(?:open|Path)\(\s*r?['"](?:/|[A-Za-z]:[\\/]|~)""")),
    ("TF104", re.compile(r"""tempfile\.(?:mkdtemp|mkstemp|mktemp|NamedTemporaryFile|TemporaryDirectory|TemporaryFile|SpooledTemporaryFile)\((?![^)]*\bdir\s*=)""")),
    ("TF104", re.compile(r"""tempfile\.gettempdir\(""")),
    ("TF105", re.compile(r"""['"](?:\./)?tests[/\\]artifacts(?:[/\\]|['"])""")),
    ("TF106", re.compile(r"""open\(\s*['"][^'"/]+['"]\s*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]""")),
    ("TF106", re.compile(r"""(?:Path\(\s*['"][^'"]+['"]\s*\)\s*\.\s*(?:mkdir|unlink|rmdir|rename|write_text|write_bytes)|shutil\.rmtree\(\s*['"])""")),
]


def find_violations(root_dir):
    violations = []
    for dirpath, dirnames, filenames in os.walk(root_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    for code, pattern in PATTERNS:
                        m = pattern.search(line)
                        if m:
                            violations.append((path, lineno, m.start() + 1, code))
    return violations


def main(argv):
    strict = "--strict" in argv
    roots = [a for a in argv if not a.startswith("--")] or ["tests"]
    found = []
    for root in roots:
        found.extend(find_violations(root))
    for path, line, col, code in found:
        print(f"{path}:{line}:{col}: {code}")
    print(f"regex_audit: {len(found)} findings", file=sys.stderr)
    return 1 if strict and found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""Check every #include "..." in src/ against the layering table of src/README.md, the one
source of the rule: a part includes its own headers by bare name ("policy.h") and another
part's with its folder ("base/err.h"), and only the parts its row's "may include" column
names, each above it in the table (dependencies point down). A part named there with
headers in parentheses ("core (only `core/walk.h`)") may include only those. Each part's
own README, where it has a "May include:" sentence, must say what its row says. A part's own
headers are the ones in its folder, the ones the "what it owns" column names under include/,
and the ones its CMakeLists.txt generates (${CMAKE_CURRENT_BINARY_DIR}/name.h).
usage: scripts/check-includes.py [ROOT]   (default: the repository this script is in)
       scripts/check-includes.py --self-test   (the check on a made-up tree must fail)
Exit 0 when every rule holds; 1, with one line per broken rule (file:line: what, why)."""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]*)"')
GENERATED = re.compile(r"\$\{CMAKE_CURRENT_BINARY_DIR\}/([A-Za-z0-9_.-]+\.h)\b")
TICKED = re.compile(r"`([^`]*)`")


def split_top(cell):
    """CELL split at the commas outside parentheses."""
    items, depth, cur = [], 0, ""
    for ch in cell:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    return [i.strip() for i in items + [cur] if i.strip()]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_table(readme, errors):
    """The rows of the table whose header has "folder" and "may include": a list of
    dicts (part, line, may: {part: None or a set of headers}, own: public headers)."""
    rows, cols = [], None
    rel = "src/README.md"
    for n, line in enumerate(open(readme, encoding="utf-8"), 1):
        if not line.lstrip().startswith("|"):
            if cols is not None and rows:
                break
            continue
        c = cells(line)
        if cols is None:
            low = [x.lower() for x in c]
            if "folder" in low and "may include" in low:
                cols = (low.index("folder"), low.index("may include"),
                        low.index("what it owns") if "what it owns" in low else None)
            continue
        if all(re.fullmatch(r":?-+:?", x) for x in c):
            continue
        folder = c[cols[0]].strip("`").rstrip("/")
        owns = c[cols[2]] if cols[2] is not None else ""
        own = {os.path.basename(t) for t in TICKED.findall(owns) if t.startswith("include/")}
        rows.append({"part": folder, "line": n, "cell": c[cols[1]], "own": own})
    if not rows:
        errors.append(f"{rel}: no table with a 'folder' and a 'may include' column")
        return rows
    above = []
    for r in rows:
        r["may"] = {}
        for item in split_top(r["cell"]):
            m = re.fullmatch(r"`?([a-z]+)/?`?\s*(\((.*)\))?", item)
            if item.lower() == "libc only":
                continue
            if item.lower() == "every part":
                r["may"].update({p: None for p in above})
                continue
            if not m:
                errors.append(f"{rel}:{r['line']}: {r['part']}/: cannot read '{item}' "
                              "(a part, 'part (only `part/x.h`)', 'libc only' or 'every part')")
                continue
            name, note = m.group(1), m.group(3) or ""
            headers = {t for t in TICKED.findall(note) if t.endswith(".h")}
            if name not in [x["part"] for x in rows]:
                errors.append(f"{rel}:{r['line']}: {r['part']}/ may include '{name}', "
                              "which is not a row of the table")
            elif name not in above:
                errors.append(f"{rel}:{r['line']}: {r['part']}/ may include {name}, which is "
                              "not above it: dependencies point down the table")
            bad = [h for h in headers if not h.startswith(name + "/")]
            if bad:
                errors.append(f"{rel}:{r['line']}: {r['part']}/: {', '.join(sorted(bad))} "
                              f"named under {name} is not {name}'s")
            r["may"][name] = headers or None
        above.append(r["part"])
    return rows


def describe(may):
    if not may:
        return "libc only"
    return ", ".join(p if h is None else f"{p} ({', '.join(sorted(h))})"
                     for p, h in may.items())


def check_part_readme(root, row, parts, errors):
    """The "May include:" sentence of src/PART/README.md, if any, against the row."""
    path = os.path.join(root, "src", row["part"], "README.md")
    if not os.path.isfile(path):
        return
    text = open(path, encoding="utf-8").read()
    at = text.find("May include:")
    if at < 0:
        return
    line = text.count("\n", 0, at) + 1
    rest = text[at + len("May include:"):]
    end = re.search(r"\.(\s|$)", re.sub(r"`[^`]*`", lambda m: "x" * len(m.group()), rest))
    sentence = rest[:end.start() if end else len(rest)]
    said = {}
    if "every part" in sentence:
        said = {p: None for p in parts[:parts.index(row["part"])]}
    for t in TICKED.findall(sentence):
        p, _, h = t.rstrip("/").partition("/")
        if p not in parts:
            said[t] = None  # not a part: never what the row says
        elif not h:
            said[p] = None
        elif said.get(p, set()) is not None:
            said.setdefault(p, set()).add(t)
    if said != row["may"]:
        rel = os.path.relpath(path, root)
        errors.append(f"{rel}:{line}: says {row['part']}/ may include {describe(said)}; its row "
                      f"in src/README.md:{row['line']} says {describe(row['may'])}")


def check(root):
    errors = []
    src = os.path.join(root, "src")
    rows = parse_table(os.path.join(src, "README.md"), errors)
    if not rows:
        return errors
    parts = [r["part"] for r in rows]
    byname = {r["part"]: r for r in rows}
    for r in rows:
        if not os.path.isdir(os.path.join(src, r["part"])):
            errors.append(f"src/README.md:{r['line']}: {r['part']}/ is a row but not a folder of src/")
        cml = os.path.join(src, r["part"], "CMakeLists.txt")
        if os.path.isfile(cml):
            r["own"] |= set(GENERATED.findall(open(cml, encoding="utf-8").read()))
        check_part_readme(root, r, parts, errors)
    for dirpath, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            part = os.path.relpath(path, src).split(os.sep)[0]
            if part not in byname:
                errors.append(f"{rel}: {part}/ is not a row of the table in src/README.md")
                continue
            row = byname[part]
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = INCLUDE.match(line)
                if m:
                    why = judge(src, dirpath, row, byname, m.group(1))
                    if why:
                        errors.append(f'{rel}:{n}: #include "{m.group(1)}": {why}')
    return errors


def judge(src, here, row, byname, name):
    """Why including NAME from a file in HERE, in ROW's part, breaks a rule (None if not)."""
    part, rowref = row["part"], f"src/README.md:{row['line']}"
    comps = name.split("/")
    if name.startswith("/") or "." in comps or ".." in comps or "" in comps:
        return "a header is named by its bare name or as folder/name, never by a relative path"
    if len(comps) == 1:
        if os.path.isfile(os.path.join(here, name)) or name in row["own"]:
            return None
        owners = sorted(p for p in byname if os.path.isfile(os.path.join(src, p, name)))
        if owners:
            return (f"{owners[0]}/'s header by bare name: another part's header is included "
                    f'with its folder ("{owners[0]}/{name}")')
        return f"no {name} in {part}/: a bare name is one of the part's own headers"
    other, header = comps[0], "/".join(comps[1:])
    if other == part:
        return f'{part}/\'s own header with its folder: a part includes its own by bare name ("{header}")'
    if other not in byname:
        return f"{other}/ is not a part (a row of the table in src/README.md)"
    if not os.path.isfile(os.path.join(src, other, header)):
        return f"no such header in src/{other}/"
    if other not in row["may"]:
        return (f"{part}/ may include {describe(row['may'])}, not {other} ({rowref}; "
                "dependencies point down the table)")
    allowed = row["may"][other]
    if allowed is not None and name not in allowed:
        return f"{part}/ may include only {', '.join(sorted(allowed))} of {other}/ ({rowref})"
    return None


SELF_TEST_README = """# src/
| folder | what it owns | may include |
|---|---|---|
| `base/` | errors | libc only |
| `core/` | policy | base |
| `audit/` | audit | base, core (only `core/walk.h`) |
| `lib/` | the public API of `include/api.h` | base, core |
"""

SELF_TEST_FILES = {
    "src/base/err.h": "",
    "src/base/err.c": '#include "err.h"\n#include "base/err.h"\n',
    "src/core/walk.h": '#include "base/err.h"\n',
    "src/core/policy.c": '#include "walk.h"\n#include "err.h"\n#include "audit/a.h"\n'
                         '#include "../base/err.h"\n#include "core/walk.h"\n',
    "src/audit/a.h": "",
    "src/audit/CMakeLists.txt": "set(H ${CMAKE_CURRENT_BINARY_DIR}/gen.h)\n",
    "src/core/policy.h": "",
    "src/audit/a.c": '#include "core/walk.h"\n#include "core/policy.h"\n#include "lib/x.h"\n'
                     '#include "core/nothere.h"\n#include "nothere.h"\n#include "gen.h"\n',
    "src/lib/x.h": "",
    "src/lib/x.c": ' #  include "api.h"\n#include "core/walk.h"\n#include <linux/fs.h>\n',
    "src/lib/README.md": "May include: `base`, `core`. Tests: none.\n",
    "src/core/README.md": "May include: `base`, `toml`.\n",
    "src/stray/s.c": '#include "base/err.h"\n',
}

SELF_TEST_EXPECTED = [
    "src/core/README.md:1: says core/ may include base, toml; its row",
    'src/base/err.c:2: #include "base/err.h": base/\'s own header with its folder',
    'src/core/policy.c:2: #include "err.h": base/\'s header by bare name',
    'src/core/policy.c:3: #include "audit/a.h": core/ may include base, not audit',
    'src/core/policy.c:4: #include "../base/err.h": a header is named by its bare name',
    'src/core/policy.c:5: #include "core/walk.h": core/\'s own header with its folder',
    'src/audit/a.c:2: #include "core/policy.h": audit/ may include only core/walk.h of core/',
    'src/audit/a.c:3: #include "lib/x.h": audit/ may include base, core (core/walk.h), not lib',
    'src/audit/a.c:4: #include "core/nothere.h": no such header in src/core/',
    'src/audit/a.c:5: #include "nothere.h": no nothere.h in audit/',
    "src/stray/s.c: stray/ is not a row of the table",
]


def self_test():
    """The check on a made-up tree finds exactly the broken rules planted in it."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {"src/README.md": SELF_TEST_README, **SELF_TEST_FILES}.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        got = check(root)
        missing = [e for e in SELF_TEST_EXPECTED if not any(g.startswith(e) for g in got)]
        extra = [g for g in got if not any(g.startswith(e) for e in SELF_TEST_EXPECTED)]
        for e in missing:
            print(f"check-includes.py --self-test: not reported: {e}", file=sys.stderr)
        for g in extra:
            print(f"check-includes.py --self-test: reported, not planted: {g}", file=sys.stderr)
        if missing or extra:
            return 1
        bad = SELF_TEST_README.replace("| base, core (only", "| lib, core (only")
        with open(os.path.join(root, "src/README.md"), "w", encoding="utf-8") as f:
            f.write(bad)
        if not any("lib, which is not above it" in g for g in check(root)):
            print("check-includes.py --self-test: a row naming a part below it passed",
                  file=sys.stderr)
            return 1
    print(f"check-includes.py --self-test: all {len(SELF_TEST_EXPECTED) + 1} planted breaks found")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print("usage: scripts/check-includes.py [ROOT] | --self-test", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(argv[0])))
    errors = check(root)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-includes.py: {len(errors)} broken layering rule(s); the rules are the "
              "table in src/README.md", file=sys.stderr)
        return 1
    print("check-includes.py: every #include in src/ keeps the layering of src/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

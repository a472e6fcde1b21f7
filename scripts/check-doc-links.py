#!/usr/bin/python3
"""Every link between the repository's Markdown files leads somewhere: the file it names exists,
and the section it names (#anchor) is a heading of that file as GitHub names it (lower case,
punctuation dropped, spaces made hyphens, a repeated heading's anchor numbered -1, -2, ...) or an
explicit <a id="..."> / <a name="...">. Links in code (fenced blocks, `spans`) and to other
sites are not links here.
usage: scripts/check-doc-links.py [ROOT]   (default: the repository this script is in)
       scripts/check-doc-links.py --self-test   (planted broken links must be reported)
Exit 0 when every link leads somewhere; 1, with one line per broken link (file:line: link, why)."""
import os
import re
import subprocess
import sys
import tempfile

LINK = re.compile(r'\]\(([^)\s]*)\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
EXPLICIT = re.compile(r'<a\s+(?:id|name)="([^"]+)"')
FENCE = re.compile(r'^\s*(```|~~~)')


def text_lines(path):
    """(line number, line) outside fenced code blocks, inline code spans blanked."""
    fenced = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, re.sub(r'`[^`]*`', '``', line)


def slug(title):
    title = re.sub(r'<[^>]+>', '', title).strip().lower()  # HTML tags dropped
    return re.sub(r'[^\w\- ]', '', title).replace(' ', '-')


def anchors(path):
    seen, out = {}, set()
    fenced = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            out.update(EXPLICIT.findall(line))
            m = HEADING.match(line)
            if m:
                s = slug(m.group(2).replace('`', ''))
                out.add(s if s not in seen else "%s-%d" % (s, seen[s]))
                seen[s] = seen.get(s, 0) + 1
    return out


def markdown_files(root):
    try:
        names = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True,
                               text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
                 for f in fs if f.endswith(".md")]
    return sorted(n for n in names if n and not n.startswith(("tests/artifacts/", "build")))


def broken(root):
    cache, out = {}, []
    for name in markdown_files(root):
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        for n, line in text_lines(path):
            for target in LINK.findall(line):
                if not target or re.match(r'[a-z][a-z0-9+.-]*:', target):
                    continue  # another site, mailto:
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                if not os.path.exists(dest):
                    out.append("%s:%d: %s: no such file" % (name, n, target))
                elif anchor and dest.endswith(".md"):
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if anchor not in cache[dest]:
                        out.append("%s:%d: %s: no such section in %s"
                                   % (name, n, target, os.path.relpath(dest, root)))
    return out


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("# A\n## Protected files (bench/protect.sh)\n## Notes\n## Notes\n"
                    '<a id="kept"></a>\n```\n[in code](nowhere.md)\n```\n'
                    "[good](b.md#the-b-section) [good](#notes-1) [good](#kept) [`x`](b.md)\n"
                    "[good](#protected-files-benchprotectsh) `[span](nowhere.md)`\n"
                    "[bad file](c.md) [bad anchor](b.md#b-section) [site](https://x.org/#y)\n"
                    "[bad](#protected-files-bench-protect-sh)\n")
        with open(os.path.join(root, "docs", "b.md"), "w") as f:
            f.write("# The `b` section\n")
        got = broken(root)
        want = ["docs/a.md:11: c.md: no such file",
                "docs/a.md:11: b.md#b-section: no such section in docs/b.md",
                "docs/a.md:12: #protected-files-bench-protect-sh: no such section in docs/a.md"]
        if got != want:
            print("self-test failed:\n  got  %r\n  want %r" % (got, want))
            return 1
    print("self-test: the three planted broken links reported, nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    out = broken(root)
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())

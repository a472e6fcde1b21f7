#!/usr/bin/python3
"""Every link between the repository's Markdown files leads somewhere: the file it names exists,
and the section it names (#anchor) is a heading of that file as GitHub names it (from its
rendered text, lower case, punctuation dropped, spaces made hyphens, a repeated heading's anchor
numbered -1, -2, ...) or an explicit <a id="..."> / <a name="...">. Inline links ([x](y),
[x](<y> "title")) and reference definitions ([r]: y) are checked; links in code (fenced blocks,
`spans`) and to other sites are not links here. Files: those git tracks or would track (new,
not ignored), else every .md under ROOT; not build*/ nor tests/artifacts/.
usage: scripts/check-doc-links.py [ROOT]   (default: the repository this script is in)
       scripts/check-doc-links.py --self-test   (planted broken links must be reported)
Exit 0 when every link leads somewhere; 1, with one line per broken link (file:line: link, why)."""
import html
import os
import re
import subprocess
import sys
import tempfile
from urllib.parse import unquote

# [text](target) and [text](<target> "title"); [ref]: target definitions.
LINK = re.compile(r'\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
DEFINITION = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?')
HEADING = re.compile(r'^\s{0,3}(?:>\s*)*(#{1,6})\s+(.*?)(?:\s+#+)?\s*$')
SETEXT = re.compile(r'^\s{0,3}(=+|-+)\s*$')
EXPLICIT = re.compile(r'<a\s+(?:id|name)="([^"]+)"')
FENCE = re.compile(r'^\s*(`{3,}|~{3,})')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')


def outside_fences(path):
    """(line number, line) of PATH outside fenced code blocks (a fence ends only at a line of
    the same character, at least as long)."""
    fence = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m and (fence is None or (m.group(1)[0] == fence[0] and
                                        len(m.group(1)) >= len(fence) and
                                        not line.strip()[len(m.group(1)):].strip())):
                fence = m.group(1) if fence is None else None
                continue
            if fence is None:
                yield n, line


def slug(title):
    """GitHub's anchor of a heading: made from its rendered text (code spans as written,
    links as their text, no emphasis marks nor HTML tags, entities decoded), lower case,
    punctuation dropped, spaces made hyphens."""
    parts = []
    for i, piece in enumerate(CODE_SPAN.split(title)):
        if i % 3 == 2:
            parts.append(piece.strip())  # a code span's content, literally
        elif i % 3 == 0:
            piece = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', piece)
            piece = re.sub(r'<[^>]+>', '', piece)
            piece = re.sub(r'(?<![\w])_+([^_]+?)_+(?![\w])', r'\1', piece)
            parts.append(html.unescape(piece))
    text = "".join(parts).strip().lower()
    return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def anchors(path):
    seen, out = {}, set()

    def add(title):
        s = slug(title)
        out.add(s if s not in seen else "%s-%d" % (s, seen[s]))
        seen[s] = seen.get(s, 0) + 1

    previous = ""
    for _, line in outside_fences(path):
        out.update(EXPLICIT.findall(CODE_SPAN.sub('', line)))
        m = HEADING.match(line)
        if m:
            add(m.group(2))
        elif SETEXT.match(line) and previous.strip() and not previous.lstrip().startswith(
                ("-", "*", "+", "|", ">", "#")):
            add(previous.strip())
        previous = line if not m else ""
    return out


def markdown_files(root, use_git=True):
    names = None
    if use_git:
        try:
            names = subprocess.run(
                ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard",
                 "*.md"], capture_output=True, text=True, check=True).stdout.split("\n")
        except (OSError, subprocess.CalledProcessError):
            names = None
    if names is None:
        names = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
                 for f in fs if f.endswith(".md")]
    skipped = lambda n: n.split(os.sep)[0].startswith(("build", ".git")) or \
        n.startswith("tests/artifacts/")
    return sorted(n for n in names if n and not skipped(n))


def broken(root, use_git=True):
    cache, out = {}, []
    for name in markdown_files(root, use_git):
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        for n, line in outside_fences(path):
            line = CODE_SPAN.sub('``', line)
            for target in LINK.findall(line) + DEFINITION.findall(line):
                if not target or re.match(r'[a-z][a-z0-9+.-]*:', target):
                    continue  # another site, mailto:
                file_part, _, anchor = target.partition("#")
                file_part, anchor = unquote(file_part), unquote(anchor)
                base = root if file_part.startswith("/") else os.path.dirname(path)
                dest = os.path.normpath(os.path.join(base, file_part.lstrip("/"))) \
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
    a = [
        "# A",                                                       # 1
        "## Protected files (bench/protect.sh)",                     # 2
        "## Notes",                                                  # 3
        "## Notes",                                                  # 4
        '<a id="kept"></a>',                                         # 5
        "```",                                                       # 6
        "~~~",                                                       # 7: not the fence's end
        "[in code](nowhere.md)",                                     # 8
        "```",                                                       # 9
        "[good](b.md#the-b-section) [good](#notes-1) [good](#kept) [`x`](b.md)",
        "[good](#protected-files-benchprotectsh) `[span](nowhere.md)` ``[s](no.md)``",
        "[bad file](c.md) [bad anchor](b.md#b-section) [site](https://x.org/#y)",  # 12
        "[bad](#protected-files-bench-protect-sh)",                  # 13
        "## The _x_ mode, `<a>` & [docs](b.md) &amp; caf\u00e9",     # 14
        "Underlined",                                                # 15
        "----------",                                                # 16
        "[good](#the-x-mode-a--docs--caf\u00e9) [good](#caf%C3%A9-1) [good](#underlined)",
        "[good](/docs/b.md) [good](<b.md> \"t\") [bad](<d.md> \"t\") [ref][r]",  # 18
        "[r]: b.md#nope",                                            # 19
        "## caf\u00e9",                                             # 20
        "## caf\u00e9",                                             # 21
        "[good](#caf\u00e9-1)",                                     # 22
    ]
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("\n".join(a) + "\n")
        with open(os.path.join(root, "docs", "b.md"), "w") as f:
            f.write("# The `b` section\n")
        got = broken(root, use_git=False)  # the planted files are in no repository
        want = ["docs/a.md:12: c.md: no such file",
                "docs/a.md:12: b.md#b-section: no such section in docs/b.md",
                "docs/a.md:13: #protected-files-bench-protect-sh: no such section in docs/a.md",
                "docs/a.md:18: d.md: no such file",
                "docs/a.md:19: b.md#nope: no such section in docs/b.md"]
        if got != want:
            print("self-test failed:\n  got  %r\n  want %r" % (got, want))
            return 1
    print("self-test: the five planted broken links reported, nothing else")
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

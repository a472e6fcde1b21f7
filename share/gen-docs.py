#!/usr/bin/env python3
"""Man pages and shell completions for testfence, generated from its own --help.

The --help text of each command (src/cli/cmd_<name>.c) is the one source: this script
runs `testfence --help` and `testfence COMMAND --help` and writes

  man/man1/testfence.1            the overview (share/testfence.1.in, with the commands)
  man/man1/testfence-COMMAND.1    one page per command
  completions/testfence.bash, _testfence (zsh), testfence.fish

The --help conventions it reads (docs/architecture.md, "Where to add"):
  - "usage: testfence CMD ..." first, then paragraphs, then "options:";
  - an option line is two spaces, the forms ("-h, --help", "--root DIR"), two spaces
    and the text, or the text on the next, deeper-indented lines;
  - a value named FILE, PATH or DIR completes paths (DIR: directories); one written
    a|b|c completes those words; any other value (N, NAME, CODES) completes nothing;
  - "exit status: ..." is the last paragraph.
usage: gen-docs.py TESTFENCE_BINARY TEMPLATE OUTDIR
Standard library only.
"""

import os
import re
import subprocess
import sys

OPTION = re.compile(r"^  (-[^ ].*?)(?:\s{2,}(\S.*))?$")
FORM = re.compile(r"^(-{1,2}[A-Za-z0-9][\w-]*)(?:[ =](\S+))?$")


class Option:
    def __init__(self, forms, value, text):
        self.forms = forms  # ["-h", "--help"]
        self.value = value  # "FILE", "a|b|c" or None
        self.text = text

    @property
    def choices(self):
        return self.value.split("|") if self.value and "|" in self.value else None

    @property
    def kind(self):
        """What the value completes to: 'file', 'dir', 'choices' or None."""
        if not self.value:
            return None
        if self.choices:
            return "choices"
        if self.value in ("DIR",):
            return "dir"
        if self.value in ("FILE", "PATH"):
            return "file"
        return "other"

    def brief(self):
        """The first clause of the text, for completion menus."""
        t = re.split(r"; |\. ", self.text, maxsplit=1)[0].strip().rstrip(".")
        return t if len(t) <= 70 else t[:67].rstrip() + "..."


class Command:
    def __init__(self, name, summary, help_text):
        self.name, self.summary = name, summary
        self.usage, self.description, self.options, self.after, self.exit = parse(help_text)


def run(binary, *args):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", NO_COLOR="1")
    return subprocess.run([binary, *args], check=True, stdout=subprocess.PIPE, env=env,
                          universal_newlines=True).stdout


def paragraphs(lines):
    """Blank-line separated blocks of lines."""
    out, cur = [], []
    for ln in lines:
        if ln.strip():
            cur.append(ln)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def parse_options(lines):
    opts = []
    for ln in lines:
        m = OPTION.match(ln)
        if m and not ln.startswith("   "):
            forms, value = [], None
            for f in m.group(1).split(", "):
                fm = FORM.match(f.strip())
                if not fm:
                    raise SystemExit("gen-docs: cannot read the option line %r" % ln)
                forms.append(fm.group(1))
                value = fm.group(2) or value
            opts.append(Option(forms, value, (m.group(2) or "").strip()))
        elif opts and ln.startswith("   "):
            opts[-1].text = (opts[-1].text + " " + ln.strip()).strip()
        else:
            raise SystemExit("gen-docs: unexpected line in options: %r" % ln)
    return opts


def parse(text):
    lines = text.rstrip("\n").split("\n")
    if not lines[0].startswith("usage: "):
        raise SystemExit("gen-docs: --help does not start with 'usage: '")
    usage = lines[0][len("usage: "):]
    rest = lines[1:]
    try:
        o = rest.index("options:")
    except ValueError:
        raise SystemExit("gen-docs: --help has no 'options:' section")
    end = o + 1
    while end < len(rest) and rest[end].strip():
        end += 1
    description = paragraphs(rest[:o])
    options = parse_options(rest[o + 1:end])
    after = paragraphs(rest[end:])
    exit_status = ""
    if after and after[-1][0].startswith("exit status:"):
        exit_status = " ".join(x.strip() for x in after.pop())[len("exit status:"):].strip()
    return usage, description, options, after, exit_status


# ---- man pages ---------------------------------------------------------------

def roff(text):
    """Escape text for roff: backslashes, minus signs of options, control characters."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w])-", r"\\-", text)
    return text


def roff_line(text):
    t = roff(text)
    return "\\&" + t if t[:1] in (".", "'") else t


def roff_block(block):
    """A paragraph: reflowed text, or, when indented, kept as it is."""
    if all(ln.startswith("  ") for ln in block):
        return [".PP", ".RS 4", ".nf"] + [roff_line(ln[2:]) for ln in block] + [".fi", ".RE"]
    out, pre = [".PP"], []
    for ln in block:
        if ln.startswith("  "):
            pre.append(ln[2:])
            continue
        if pre:
            out += [".RS 4", ".nf"] + [roff_line(p) for p in pre] + [".fi", ".RE"]
            pre = []
        out.append(roff_line(ln.strip()))
    if pre:
        out += [".RS 4", ".nf"] + [roff_line(p) for p in pre] + [".fi", ".RE"]
    return out


def man_option(opt):
    forms = ", ".join("\\fB%s\\fR" % roff(f) for f in opt.forms)
    if opt.value:
        forms += " \\fI%s\\fR" % roff(opt.value)
    return [".TP", forms, roff_line(opt.text)]


def man_command(cmd, version):
    name = "testfence-" + cmd.name
    out = ['.TH %s 1 "" "testfence %s" "testfence manual"' % (name.upper(), version), ".nh", ".ad l",
           ".SH NAME", "%s \\- %s" % (roff(name), roff(cmd.summary)),
           ".SH SYNOPSIS", ".B testfence " + roff(cmd.name),
           roff_line(cmd.usage.split(" ", 2)[2] if cmd.usage.count(" ") >= 2 else ""),
           ".SH DESCRIPTION"]
    for block in cmd.description:
        out += roff_block(block)
    out.append(".SH OPTIONS")
    for opt in cmd.options:
        out += man_option(opt)
    for block in cmd.after:
        out += roff_block(block)
    if cmd.exit:
        out += [".SH EXIT STATUS", roff_line(cmd.exit[:1].upper() + cmd.exit[1:])]
    out += [".SH SEE ALSO", ".BR testfence (1)"]
    return "\n".join(out) + "\n"


def man_overview(template, commands, version):
    rows = []
    for c in commands:
        rows += [".TP", "\\fBtestfence %s\\fR" % roff(c.name),
                 roff_line(c.summary[:1].upper() + c.summary[1:] + "; see"),
                 ".BR testfence\\-%s (1)." % roff(c.name)]
    see = ",\n".join(".BR testfence\\-%s (1)" % roff(c.name) for c in commands)
    text = open(template).read()
    return (text.replace("@VERSION@", version).replace("@COMMANDS@", "\n".join(rows))
            .replace("@SEE_ALSO@", see))


# ---- completions ---------------------------------------------------------------

def sh_words(words):
    return " ".join(words)


def bash(commands, top):
    value_opts = {}
    lines = [
        "# bash completion for testfence(1); generated from its --help by share/gen-docs.py",
        "_testfence() {",
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
        "    local cmd='' i=1 j",
        "    while ((i < COMP_CWORD)); do",
        "        case ${COMP_WORDS[i]} in -*) ((i++)) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac",
        "    done",
        "    if [[ -z $cmd ]]; then",
        "        COMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % sh_words(
            [c.name for c in commands] + [f for o in top for f in o.forms]),
        "        return",
        "    fi",
        "    local opts='' takes=''",
        "    case $cmd in",
    ]
    for c in commands:
        takes = [f for o in c.options if o.value for f in o.forms]
        value_opts[c.name] = takes
        lines += ["        %s) opts='%s'; takes='%s' ;;" % (
            c.name, sh_words(f for o in c.options for f in o.forms), sh_words(takes))]
    lines += [
        "        *) return ;;",
        "    esac",
        "    # run: from the first operand (or what follows --) on, complete the wrapped command.",
        "    if [[ $cmd == run ]]; then",
        "        for ((j = i + 1; j < COMP_CWORD; j++)); do",
        "            local w=${COMP_WORDS[j]}",
        "            if [[ $w == -- ]]; then ((j++)); break; fi",
        "            if [[ $w == -* ]]; then",
        "                [[ \" $takes \" == *\" $w \"* ]] && ((j++))",
        "                continue",
        "            fi",
        "            break",
        "        done",
        "        if ((j < COMP_CWORD)) || [[ ${COMP_WORDS[j-1]} == -- && j -eq COMP_CWORD ]]; then",
        "            if declare -F _command_offset >/dev/null; then",
        "                _command_offset \"$j\"",
        "            elif ((j == COMP_CWORD)); then",
        "                COMPREPLY=($(compgen -c -- \"$cur\"))",
        "            else",
        "                COMPREPLY=($(compgen -f -- \"$cur\"))",
        "            fi",
        "            return",
        "        fi",
        "    fi",
        "    case $cmd:$prev in",
    ]
    for c in commands:
        for o in c.options:
            if not o.value:
                continue
            pat = "|".join("%s:%s" % (c.name, f) for f in o.forms)
            if o.kind == "choices":
                act = "COMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % sh_words(o.choices)
            elif o.kind == "dir":
                act = "COMPREPLY=($(compgen -d -- \"$cur\"))"
            elif o.kind == "file":
                act = "COMPREPLY=($(compgen -f -- \"$cur\"))"
            else:
                act = "COMPREPLY=()"
            lines.append("        %s) %s; return ;;" % (pat, act))
    lines += [
        "    esac",
        "    if [[ $cur == -* ]]; then",
        "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
        "    elif [[ $cmd == explain || $cmd == audit || $cmd == suggest ]]; then",
        "        COMPREPLY=($(compgen -f -- \"$cur\"))",
        "    fi",
        "}",
        "complete -o filenames -o bashdefault -F _testfence testfence",
    ]
    return "\n".join(lines) + "\n"


def zsh_quote(s):
    return s.replace("'", "'\\''")


def zsh_desc(s):
    return zsh_quote(re.sub(r"([\[\]:\\])", r"\\\1", s))


def zsh(commands, top):
    lines = ["#compdef testfence",
             "# zsh completion for testfence(1); generated from its --help by share/gen-docs.py",
             "",
             "_testfence() {",
             "  local -a commands",
             "  commands=("]
    for c in commands:
        lines.append("    '%s:%s'" % (c.name, zsh_desc(c.summary)))
    lines += ["  )",
              "  if (( CURRENT == 2 )); then",
              "    _alternative 'commands:command:_describe -t commands command commands' \\",
              "      'options:option:(%s)'" % " ".join(f for o in top for f in o.forms),
              "    return",
              "  fi",
              "  local cmd=$words[2]",
              "  shift words",
              "  (( CURRENT-- ))",
              "  case $cmd in"]
    for c in commands:
        specs = []
        for o in c.options:
            excl = "(%s)" % " ".join(o.forms) if len(o.forms) > 1 else ""
            for f in o.forms:
                spec = excl + f
                if o.value and f.startswith("--"):
                    spec += "="
                spec += "[%s]" % zsh_desc(o.brief())
                if o.value:
                    action = {"choices": "(%s)" % " ".join(o.choices or []),
                              "dir": "_files -/", "file": "_files"}.get(o.kind, " ")
                    spec += ":%s:%s" % (zsh_desc(o.value.lower()), action)
                specs.append("'%s'" % spec)
        if c.name == "run":
            specs.append("'(-)*::command:_normal'")
        elif c.name in ("explain", "audit", "suggest"):
            specs.append("'*:path:_files'")
        lines.append("    %s) _arguments -S %s ;;" % (c.name, " \\\n        ".join(specs)))
    lines += ["  esac", "}", "", '_testfence "$@"']
    return "\n".join(lines) + "\n"


def fish_quote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(commands, top):
    names = " ".join(c.name for c in commands)
    lines = ["# fish completion for testfence(1); generated from its --help by share/gen-docs.py",
             "complete -c testfence -f"]
    for c in commands:
        lines.append("complete -c testfence -n 'not __fish_seen_subcommand_from %s' -a %s -d %s"
                     % (names, c.name, fish_quote(c.summary)))
    for o in top:
        lines.append(fish_flag("not __fish_seen_subcommand_from " + names, o))
    for c in commands:
        for o in c.options:
            lines.append(fish_flag("__fish_seen_subcommand_from " + c.name, o))
        if c.name == "run":
            lines.append("complete -c testfence -n '__fish_seen_subcommand_from run' "
                         "-a '(__fish_complete_subcommand --fcs-skip=2)'")
        elif c.name in ("explain", "audit", "suggest"):
            lines.append("complete -c testfence -n '__fish_seen_subcommand_from %s' -F" % c.name)
    return "\n".join(lines) + "\n"


def fish_flag(cond, o):
    parts = ["complete -c testfence -n %s" % fish_quote(cond)]
    for f in o.forms:
        parts.append(("-l %s" % f[2:]) if f.startswith("--") else ("-s %s" % f[1:]))
    if o.kind == "choices":
        parts.append("-x -a %s" % fish_quote(" ".join(o.choices)))
    elif o.kind == "dir":
        parts.append("-x -a '(__fish_complete_directories)'")
    elif o.kind == "file":
        parts.append("-r -F")
    elif o.value:
        parts.append("-x")
    parts.append("-d %s" % fish_quote(o.brief()))
    return " ".join(parts)


# ---- main ------------------------------------------------------------------------

def main():
    if len(sys.argv) != 4:
        raise SystemExit("usage: gen-docs.py TESTFENCE_BINARY TEMPLATE OUTDIR")
    binary, template, outdir = sys.argv[1:]
    top_help = run(binary, "--help")
    version = run(binary, "--version").split()[-1]
    listing = top_help.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = []
    for ln in listing.splitlines():
        name, summary = ln.split(None, 1)
        commands.append(Command(name, summary.strip(), run(binary, name, "--help")))
    top_opts = parse_options(top_help.split("options:\n", 1)[1].split("\n\n", 1)[0].splitlines())
    os.makedirs(os.path.join(outdir, "man", "man1"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "completions"), exist_ok=True)
    files = {os.path.join("man", "man1", "testfence.1"): man_overview(template, commands, version),
             os.path.join("completions", "testfence.bash"): bash(commands, top_opts),
             os.path.join("completions", "_testfence"): zsh(commands, top_opts),
             os.path.join("completions", "testfence.fish"): fish(commands, top_opts)}
    for c in commands:
        files[os.path.join("man", "man1", "testfence-%s.1" % c.name)] = man_command(c, version)
    for rel, text in files.items():
        with open(os.path.join(outdir, rel), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

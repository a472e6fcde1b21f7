#!/usr/bin/python3
"""Validate SARIF logs against the SARIF 2.1.0 JSON schema kept beside this script
(sarif-schema-2.1.0.json: the OASIS schema as npm's @microsoft/jest-sarif 1.0.0-beta.0 ships it,
lib/schemas/sarif-2.1.0-rtm.5.json, MIT; rtm.5 is the text 2.1.0 was published with), with
Debian's python3-jsonschema (scripts/deps.sh test).
usage: sarif_schema.py FILE...             validate each file
       sarif_schema.py --emit PROGRAM      run PROGRAM with TF_SARIF_OUT set to a fresh
                                           directory, then validate every *.sarif it left
Exit 0 when every log is valid (and PROGRAM passed); 1 otherwise, saying where."""
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-schema-2.1.0.json")


def check(paths):
    with open(SCHEMA, encoding="utf-8") as f:
        validator = jsonschema.Draft4Validator(json.load(f))
    bad = 0
    for p in paths:
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            print(f"{p}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
        bad += bool(errors)
        if not errors:
            print(f"ok   {p} is valid SARIF 2.1.0")
    return bad == 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--emit":
        with tempfile.TemporaryDirectory(prefix="tf-sarif-") as out:
            rc = subprocess.run([argv[2]], env=dict(os.environ, TF_SARIF_OUT=out)).returncode
            logs = sorted(glob.glob(os.path.join(out, "*.sarif")))
            if not logs:
                print(f"{argv[2]} left no SARIF log")
                return 1
            return 0 if check(logs) and rc == 0 else 1
    if len(argv) < 2:
        print(__doc__)
        return 2
    return 0 if check(argv[1:]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# audit-args: --select TF105
import os
from pathlib import Path

ARTIFACTS = "tests/artifacts/cache"


def test_artifacts(run_id):
    Path("tests/artifacts/out.json").write_text("{}")
    os.makedirs(f"tests/artifacts/{run_id}")
    open("./tests/artifacts/log.txt", "w")
    Path("tests") / "artifacts"
    "tests/artifactsXYZ"
    print("results are in tests/artifacts/")

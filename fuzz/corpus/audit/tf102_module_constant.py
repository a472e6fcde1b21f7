from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "sample_data"


def test_writes_sample_data():
    (DATA / "users.json").write_text("[]")
    DATA.mkdir(exist_ok=True)


def test_reads_sample_data_fine():
    (DATA / "users.json").read_text()

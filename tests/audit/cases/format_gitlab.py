# audit-args: --format gitlab
# GitLab Code Quality (issue 29): one issue per finding, severity by the finding's, the path
# relative to the root, a fingerprint without the line (so moving code keeps it) that still
# tells two identical writes apart; suppressed findings are left out.
import shelve


def test_gitlab():
    open("config.toml", "w")
    open("out.log", "w")
    open("out.log", "w")
    open("/tmp/scratch.txt", "w")  # noqa: TF104
    open("caf\u00e9 \"quoted\".txt", "w")
    shelve.open("/tmp/cache.db")

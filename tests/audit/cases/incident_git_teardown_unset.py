# https://github.com/Powerlevel9k/powerlevel9k/pull/1221
# The git tests' teardown unset user.name and user.email in the global config.
import subprocess


class TestGitSegment:
    def teardown_method(self, method):
        subprocess.call(["git", "config", "--global", "--unset", "user.name"])
        subprocess.call(["git", "config", "--global", "--unset", "user.email"])

    def test_branch(self):
        assert True

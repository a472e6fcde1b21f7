# https://github.com/nodegit/nodegit/issues/712
# The tests ran git config --global --unset: the user pushed commits as 'undefined'.
import subprocess


def test_signature_defaults():
    subprocess.check_call("git config --global --unset user.name", shell=True)
    subprocess.check_call("git config --global --unset user.email", shell=True)

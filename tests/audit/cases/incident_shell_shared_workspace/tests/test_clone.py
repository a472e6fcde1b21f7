# https://github.com/webcoyote/sandvault/issues/237
# The suite rm -rf'd a clone path built from $SHARED_WORKSPACE: the user's own checkout lived there.
import subprocess


def test_clone():
    subprocess.run(["bash", "scripts/clone-tests.sh", "src"], check=True)

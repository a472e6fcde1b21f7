# https://github.com/joconnor22/LIFE/issues/6
# Run from the wrong directory, a glob matched nothing and rm -rf $caseName became rm -rf *: everything went.
import subprocess


def test_store_ref_data():
    subprocess.run(["bash", "testing/store-ref-data.sh"])

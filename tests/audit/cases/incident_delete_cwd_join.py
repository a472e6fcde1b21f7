# https://github.com/mozilla/mozmill-automation/issues/141
# When the clone failed first, the cleanup of cwd + repo name deleted the working directory.
import os
import shutil


def cleanup(repo_name):
    path = os.path.join(os.getcwd(), repo_name)
    shutil.rmtree(path)


def test_testrun(repo_name):
    shutil.rmtree(os.path.join(os.getcwd(), repo_name))

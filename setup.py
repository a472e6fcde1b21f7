"""The testfence wheel, built by the project's own CMake build.

`pip install .` and `python3 -m build --no-isolation` come here (pyproject.toml has the
metadata). The wheel holds, for any Python environment (venv, pyenv, tox, --user):

  testfence.py, _testfence/          the pytest plugin (pytest11 entry point) and its code
  testfence_native/                  beside it, found through its __file__:
      libtestfence.so.0                the library it drives (_testfence/_native.abi3.so, else ctypes)
      libtestfence_preload.so          the diagnostics shim the library preloads
  bin/testfence                      the CLI (an ELF, libc only)
  lib/testfence/libtestfence_preload.so   the shim, where the CLI finds it (../lib/testfence)

so `pip uninstall testfence` leaves the environment as it was. Standard library and setuptools only.
"""

import glob
import os
import re
import shutil
import subprocess
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.build_scripts import build_scripts
except ImportError:  # setuptools < 69: its distutils has it
    from distutils.command.build_scripts import build_scripts

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # building an sdist needs no wheel package
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
# Relative to the source dir, as setuptools wants scripts and data files named.
WORK = "build-py"
STAGE = WORK + "/stage"
NATIVE = "testfence_native"


def version():
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        m = re.search(r"project\(testfence VERSION ([0-9.]+)", f.read())
    if not m:
        raise SystemExit("setup.py: no version in CMakeLists.txt's project()")
    return m.group(1)


def cmake_stage():
    """Configure, build and install (stripped) into STAGE, once per setup.py run."""
    if getattr(cmake_stage, "done", False):
        return
    build = os.path.join(WORK, "cmake")
    jobs = str(os.cpu_count() or 2)
    subprocess.check_call(["cmake", "-S", HERE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                           "-DTESTFENCE_TESTS=OFF",
                           "-DCMAKE_INSTALL_LIBDIR=lib"])
    subprocess.check_call(["cmake", "--build", build, "-j", jobs])
    shutil.rmtree(STAGE, ignore_errors=True)
    subprocess.check_call(["cmake", "--install", build, "--prefix", os.path.abspath(STAGE),
                           "--strip"])
    cmake_stage.done = True


def staged(rel):
    path = os.path.join(STAGE, rel)
    if not os.path.isfile(path):
        raise SystemExit("setup.py: the CMake install did not produce %s" % path)
    return path


def staged_data_files():
    """The staged files that go under the environment's prefix, as setuptools lists them.
    Not the man pages and completions: pip would leave their share/ directories behind,
    empty; they come with make install and the Debian package."""
    return [("lib/testfence", [staged("lib/testfence/libtestfence_preload.so")])]


class BuildPy(build_py):
    """The plugin, plus the native files beside it, built by CMake."""

    def run(self):
        cmake_stage()
        self.distribution.data_files = staged_data_files()
        super().run()
        native = os.path.join(self.build_lib, NATIVE)
        os.makedirs(native, exist_ok=True)
        lib = os.path.realpath(staged("lib/libtestfence.so.0"))
        shutil.copyfile(lib, os.path.join(native, "libtestfence.so.0"))
        shutil.copyfile(staged("lib/testfence/libtestfence_preload.so"),
                        os.path.join(native, "libtestfence_preload.so"))
        # The compiled binding, where CMake found Python's headers (else the plugin uses
        # ctypes): the staged one, stripped, wherever the install put the plugin.
        compiled = glob.glob(os.path.join(STAGE, "**", "_testfence", "_native.abi3.so"),
                             recursive=True)
        if len(compiled) > 1:
            raise SystemExit("setup.py: more than one staged _native.abi3.so: %s" % compiled)
        if compiled:
            shutil.copyfile(compiled[0],
                            os.path.join(self.build_lib, "_testfence", "_native.abi3.so"))


class BuildScripts(build_scripts):
    """The CLI is an ELF binary: copied as it is (setuptools would read it as Python)."""

    def run(self):
        cmake_stage()
        os.makedirs(self.build_dir, exist_ok=True)
        for script in self.scripts:
            dest = os.path.join(self.build_dir, os.path.basename(script))
            shutil.copyfile(script, dest)
            os.chmod(dest, 0o755)



class NativeDistribution(Distribution):
    def has_ext_modules(self):
        return True  # platform-specific: native files inside


cmdclass = {"build_py": BuildPy, "build_scripts": BuildScripts}

if bdist_wheel is not None:
    class BdistWheel(bdist_wheel):
        """py3-none-<platform>: native, but not tied to one Python: the compiled binding is
        built for the stable ABI and links no libpython; where it cannot load (PyPy), ctypes."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")

    cmdclass["bdist_wheel"] = BdistWheel

setup(
    version=version(),
    distclass=NativeDistribution,
    cmdclass=cmdclass,
    scripts=[STAGE + "/bin/testfence"],
    # Not build/: that is the CMake build directory of a checkout.
    options={"build": {"build_base": WORK + "/setuptools"}},
)

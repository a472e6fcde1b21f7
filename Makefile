# A thin front for people who type make; CMake does the building. From a clean clone,
# `make` needs no script run first and fetches nothing (the audit has its own parser).
#   make && make install [PREFIX=/usr/local] [DESTDIR=...]    make uninstall
#   make check (the full suite, as CI)   make demo   make wheel   make deb
PREFIX ?= /usr/local
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
export DESTDIR

.PHONY: all check demo install uninstall wheel deb clean
all:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j$(JOBS)

check:
	scripts/check.sh

demo:
	scripts/demo.sh

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# Removes every file the last install from $(BUILD) put in place, and the directories
# it created, when they are empty again (cmake/install-begin.cmake recorded them).
uninstall:
	scripts/uninstall.sh $(BUILD)

# The wheel for any Python environment (pip install dist/testfence-*.whl). Run from
# another directory: a Python would otherwise take ./build for its `build` module.
PYTHON ?= python3
wheel:
	cd / && $(PYTHON) -m build --no-isolation --wheel --outdir $(CURDIR)/dist $(CURDIR)

# The Debian package, built in a copy of the tree: dpkg-buildpackage writes beside it.
deb:
	scripts/build-deb.sh dist

clean:
	rm -rf build build-asan build-py dist

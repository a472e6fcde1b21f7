# A thin front for people who type make; CMake does the building. From a clean clone,
# `make` needs no script run first and fetches nothing (the audit has its own parser).
#   make && make install [PREFIX=/usr/local] [DESTDIR=...]    make uninstall
#   make check (the full suite, as CI)   make demo   make wheel   make deb
#   make windows: build-windows/testfence.exe, cross-built with Debian's mingw-w64
#   (scripts/deps.sh windows; docs/platforms.md)
PREFIX ?= /usr/local
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
export DESTDIR

.PHONY: all check demo install uninstall wheel deb clean windows
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

# testfence.exe for 64-bit Windows (audit, explain, init, clean, doctor; run refuses there),
# with warnings as errors as every CI build; tests/platforms/ runs it under wine.
windows:
	cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/mingw-w64.cmake \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESTFENCE_WERROR=ON
	cmake --build build-windows -j$(JOBS)

clean:
	rm -rf build build-asan build-py build-windows dist

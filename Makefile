# A thin front for people who type make; CMake does the building. From a clean clone,
# `make` needs no script run first and fetches nothing (the audit has its own parser).
#   make && make install [PREFIX=/usr/local] [DESTDIR=...]    make uninstall
#   make check (the full suite, as CI)   make demo   make wheel   make deb
#   make windows: build-windows/testfence.exe, cross-built with Debian's mingw-w64
#   (scripts/deps.sh windows; docs/platforms.md)
#   make macos-posix: the macOS source set built on Linux with clang (build-macos-posix/;
#   scripts/deps.sh macos; docs/platforms.md), for tests/platforms/macos_posix.bats
PREFIX ?= /usr/local
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
export DESTDIR

.PHONY: all check demo install uninstall wheel deb clean windows macos-posix
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

# The files a Mac builds testfence and libtestfence.dylib from, built here (Linux) with clang
# and warnings as errors: glibc asked for POSIX and BSD names only, src/macos/darwin.c's
# macOS-only primitives on their Linux stand-ins (TESTFENCE_MACOS_SET in CMakeLists.txt).
macos-posix:
	cmake -S . -B build-macos-posix -DCMAKE_C_COMPILER=clang -DTESTFENCE_MACOS_SET=ON \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESTFENCE_WERROR=ON
	cmake --build build-macos-posix -j$(JOBS)

clean:
	rm -rf build build-asan build-py build-windows build-macos-posix dist

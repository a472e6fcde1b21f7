# A thin front for people who type make; CMake does the building.
PREFIX ?= /usr/local
BUILD ?= build

.PHONY: all check demo install clean
all:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j

check:
	scripts/check.sh

demo:
	scripts/demo.sh

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build build-asan

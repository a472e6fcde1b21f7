# Cross-building testfence.exe for 64-bit Windows with Debian's mingw-w64
# (apt-get install mingw-w64; scripts/deps.sh windows). Used by `make windows`:
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
# The result runs under wine (tests/platforms/) and on Windows; see docs/platforms.md.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(tf_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${tf_mingw}-gcc)
set(CMAKE_RC_COMPILER ${tf_mingw}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${tf_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# One self-contained .exe: no libgcc or winpthread DLL to ship beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# Tests that build helpers run them through wine (toml_decoder.exe for the TOML corpus).
set(CMAKE_CROSSCOMPILING_EMULATOR wine)

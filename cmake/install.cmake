# Where `make install` (cmake --install), the wheel and the Debian package put each file,
# relative to the prefix, and the record `make uninstall` needs to leave nothing behind.
# Every install() in the tree uses these variables; a new destination is added here.
include(GNUInstallDirs)

# The shim sits in a private directory beside libtestfence.so, which finds it there; the
# CLI finds it from its own directory through TF_SHIM_FROM_BIN, compiled in, so any
# bindir/libdir pair works (Debian's multiarch lib/x86_64-linux-gnu too).
set(TF_SHIM_DIR ${CMAKE_INSTALL_LIBDIR}/testfence)
file(RELATIVE_PATH TF_SHIM_FROM_BIN /p/${CMAKE_INSTALL_BINDIR} /p/${TF_SHIM_DIR})
set(TF_MAN1_DIR ${CMAKE_INSTALL_MANDIR}/man1)
set(TESTFENCE_BASH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
    CACHE STRING "where the bash completion goes, relative to the prefix")
set(TESTFENCE_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/site-functions
    CACHE STRING "where the zsh completion goes (Debian's package: share/zsh/vendor-completions)")
set(TESTFENCE_FISH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d
    CACHE STRING "where the fish completion goes, relative to the prefix")
# The pytest plugin: empty means decided at install time for the prefix given then
# (cmake/install-begin.cmake): where Debian's /usr/bin/python3 looks.
set(TESTFENCE_PYTHON_DIR "" CACHE STRING "where the pytest plugin goes, relative to the prefix")
# The plugin's bytecode is written at install (cmake/install-bytecode.cmake) by this Python,
# whose version also names the default TESTFENCE_PYTHON_DIR (lib/python3.X/dist-packages);
# Debian's package sets it empty and leaves the bytecode to py3compile.
set(TF_PYTHON_DEFAULT /usr/bin/python3)
set(TESTFENCE_PYTHON ${TF_PYTHON_DEFAULT} CACHE STRING
    "the Python the plugin is installed for: writes its bytecode, names its directory (empty: no bytecode)")
option(TESTFENCE_PYTEST_ENTRY_POINT
    "Register the plugin (pytest11 entry point) so every pytest of that Python loads it" ON)

# Every directory an install puts files in. The first install rule notes which of them
# (and their parents) do not exist yet; `make uninstall` removes exactly those, if empty.
set(TF_INSTALL_DIRS ${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_LIBDIR} ${TF_SHIM_DIR}
    ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_LIBDIR}/pkgconfig ${TF_MAN1_DIR}
    ${TESTFENCE_BASH_COMPLETION_DIR} ${TESTFENCE_ZSH_COMPLETION_DIR}
    ${TESTFENCE_FISH_COMPLETION_DIR})
install(CODE "set(tf_install_dirs \"${TF_INSTALL_DIRS}\")
set(tf_python_dir \"${TESTFENCE_PYTHON_DIR}\")
set(tf_python \"${TESTFENCE_PYTHON}\")
set(tf_python_default \"${TF_PYTHON_DEFAULT}\")
set(tf_dirs_record \"${PROJECT_BINARY_DIR}/install_dirs.txt\")
set(tf_destdir_record \"${PROJECT_BINARY_DIR}/install_destdir.txt\")
include(\"${PROJECT_SOURCE_DIR}/cmake/install-begin.cmake\")")

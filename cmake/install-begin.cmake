# Runs first in every `cmake --install`, with the prefix given then (not the configured
# one): checks the Python that writes the plugin's bytecode, decides the plugin's directory
# and notes which directories this install creates.
# In: tf_install_dirs, tf_python_dir, tf_python (TESTFENCE_PYTHON), tf_python_default,
# tf_dirs_record, tf_destdir_record. Out: TF_PYTHON_DIR (used by the plugin's install rules,
# which name it as ${TF_PYTHON_DIR}), tf_site (that directory under DESTDIR, where the plugin's
# files are written), tf_tag (that Python's bytecode tag, cpython-311; empty: no bytecode).

# Checked before any file is installed: a wrong one stops the install with nothing written.
set(tf_tag "")
set(tf_pyver "")
if(tf_python)
    execute_process(COMMAND "${tf_python}" -c
        "import sys; print(sys.implementation.cache_tag, 'python%d.%d' % sys.version_info[:2])"
        OUTPUT_VARIABLE tf_out RESULT_VARIABLE tf_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(tf_rc EQUAL 0 AND tf_out MATCHES "^([^ ]+) (python3\\.[0-9]+)$")
        set(tf_tag "${CMAKE_MATCH_1}")
        set(tf_pyver "${CMAKE_MATCH_2}")
    elseif(tf_python STREQUAL tf_python_default)
        message(STATUS "No bytecode for the plugin: ${tf_python} does not run "
                       "(-DTESTFENCE_PYTHON= names another Python)")
    else()
        message(FATAL_ERROR "TESTFENCE_PYTHON=${tf_python} is not a Python 3 that runs "
                            "(${tf_rc}): it is the one that writes the plugin's bytecode; name "
                            "another, or -DTESTFENCE_PYTHON= for no bytecode. Nothing was installed.")
    endif()
endif()

if(tf_python_dir)
    set(TF_PYTHON_DIR "${tf_python_dir}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(TF_PYTHON_DIR lib/python3/dist-packages)
else()
    # Debian's /usr/bin/python3 reads PREFIX/lib/python3.X/dist-packages for /usr/local.
    # Other Pythons (venv, pyenv, tox) get the plugin from the wheel: pip install .
    # X is TESTFENCE_PYTHON's version, else /usr/bin/python3's: the bytecode is for that one.
    if(NOT tf_pyver)
        execute_process(COMMAND /usr/bin/python3 -c
            "import sys; print('python%d.%d' % sys.version_info[:2])"
            OUTPUT_VARIABLE tf_pyver OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
    if(NOT tf_pyver)
        set(tf_pyver python3)
    endif()
    set(TF_PYTHON_DIR lib/${tf_pyver}/dist-packages)
endif()

set(tf_base "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(tf_site "${tf_base}/${TF_PYTHON_DIR}")
set(tf_created "")
if(EXISTS "${tf_dirs_record}")
    file(STRINGS "${tf_dirs_record}" tf_created)
endif()
set(tf_python_package "${TF_PYTHON_DIR}/_testfence" "${TF_PYTHON_DIR}/_testfence/childguard") # the plugin's code
foreach(rel IN LISTS tf_install_dirs tf_python_package)
    set(d "${tf_base}/${rel}")
    while(NOT EXISTS "${d}") # the prefix itself too, when this install creates it
        list(APPEND tf_created "${d}")
        get_filename_component(d "${d}" DIRECTORY)
    endwhile()
endforeach()
list(REMOVE_DUPLICATES tf_created)
list(JOIN tf_created "\n" tf_text)
file(WRITE "${tf_dirs_record}" "${tf_text}\n")
# The manifest names files where they run, without DESTDIR (as CMake's own entries): the
# DESTDIR of this install is kept beside it, for make uninstall to remove the staged files,
# never the live ones of the same prefix.
file(WRITE "${tf_destdir_record}" "$ENV{DESTDIR}")

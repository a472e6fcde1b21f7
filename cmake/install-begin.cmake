# Runs first in every `cmake --install`, with the prefix given then (not the configured
# one): decides the plugin's directory and notes which directories this install creates.
# In: tf_install_dirs, tf_python_dir, tf_python (TESTFENCE_PYTHON), tf_dirs_record. Out: TF_PYTHON_DIR (used by the
# plugin's install rules, which name it as ${TF_PYTHON_DIR}).

if(tf_python_dir)
    set(TF_PYTHON_DIR "${tf_python_dir}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(TF_PYTHON_DIR lib/python3/dist-packages)
else()
    # Debian's /usr/bin/python3 reads PREFIX/lib/python3.X/dist-packages for /usr/local.
    # Other Pythons (venv, pyenv, tox) get the plugin from the wheel: pip install .
    set(tf_pyexe /usr/bin/python3)
    if(tf_python) # the one that compiles the plugin: the directory must be its version's
        set(tf_pyexe "${tf_python}")
    endif()
    execute_process(COMMAND "${tf_pyexe}" -c
        "import sys; print('python%d.%d' % sys.version_info[:2])"
        OUTPUT_VARIABLE tf_pyver OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT tf_pyver)
        set(tf_pyver python3)
    endif()
    set(TF_PYTHON_DIR lib/${tf_pyver}/dist-packages)
endif()

set(tf_base "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
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

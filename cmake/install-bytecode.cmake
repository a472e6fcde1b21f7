# After the plugin's files are installed, before its RECORD: their bytecode, written now as
# pip and Debian's py3compile write it. Without it every pytest would compile most of the
# plugin from source (6-13 ms a start): the plugin writes no bytecode from its load until its
# fence is up, the fence refuses it after, and PYTHONDONTWRITEBYTECODE or a root-owned prefix
# forbid it anyway. (testfence.py, 40 lines, pytest compiles again for its assertion
# rewriting whatever is installed.)
# In: TF_PYTHON_DIR, tf_site, tf_python and tf_tag (install-begin.cmake: empty tag, no
# bytecode), tf_plugin_py (the plugin's files, relative to TF_PYTHON_DIR). Out: tf_bytecode (the .pyc
# files written, relative to it), in the install manifest too (make uninstall).
set(tf_bytecode "")
if(NOT tf_tag)
    return()
endif()
set(tf_paths "")
if(DEFINED ENV{DESTDIR} AND NOT "$ENV{DESTDIR}" STREQUAL "")
    # The path a traceback names is where the file is at run time, not under DESTDIR.
    set(tf_paths -s "$ENV{DESTDIR}" -p /)
endif()
set(tf_files "")
foreach(f IN LISTS tf_plugin_py)
    list(APPEND tf_files "${tf_site}/${f}")
endforeach()
execute_process(COMMAND "${tf_python}" -m compileall -q -f ${tf_paths} ${tf_files}
                RESULT_VARIABLE tf_rc)
if(NOT tf_rc EQUAL 0) # the install is whole without it: slower starts, said
    message(WARNING "${tf_python} could not compile all of the plugin in ${tf_site} "
                    "(${tf_rc}): the plugin may not run on that Python, and what was not "
                    "compiled is compiled again at every pytest start")
endif()
foreach(f IN LISTS tf_plugin_py)
    get_filename_component(dir "${f}" DIRECTORY)
    get_filename_component(stem "${f}" NAME_WE)
    set(pyc "${stem}.${tf_tag}.pyc")
    if(dir)
        set(pyc "${dir}/__pycache__/${pyc}")
    else()
        set(pyc "__pycache__/${pyc}")
    endif()
    if(EXISTS "${tf_site}/${pyc}")
        list(APPEND tf_bytecode "${pyc}")
        # The manifest names files where they are at run time, as CMake's own entries do.
        list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${CMAKE_INSTALL_PREFIX}/${TF_PYTHON_DIR}/${pyc}")
        message(STATUS "Installing: ${tf_site}/${pyc}")
    endif()
endforeach()

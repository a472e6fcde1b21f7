# After the plugin's files are installed, before its RECORD: their bytecode, written now as
# pip and Debian's py3compile write it. Without it every pytest would compile the plugin from
# source (6-13 ms a start): the plugin writes no bytecode until the fence is up, the fence then
# refuses it, and PYTHONDONTWRITEBYTECODE or a root-owned prefix forbid it anyway.
# In: TF_PYTHON_DIR, tf_python (the interpreter; empty: no bytecode). Out: the .pyc files,
# in the install manifest (make uninstall) and found by install-record.cmake's RECORD.
if(NOT tf_python)
    return()
endif()
if(NOT EXISTS "${tf_python}")
    message(STATUS "No bytecode for the plugin: ${tf_python} does not exist "
                   "(-DTESTFENCE_PYTHON= names another)")
    return()
endif()
set(tf_site "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${TF_PYTHON_DIR}")
set(tf_paths "")
if(DEFINED ENV{DESTDIR} AND NOT "$ENV{DESTDIR}" STREQUAL "")
    # The path a traceback names is where the file is at run time, not under DESTDIR.
    set(tf_paths -s "$ENV{DESTDIR}" -p /)
endif()
execute_process(COMMAND "${tf_python}" -c "import sys; print(sys.implementation.cache_tag)"
                OUTPUT_VARIABLE tf_tag OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE tf_rc)
if(tf_rc EQUAL 0 AND tf_tag)
    execute_process(COMMAND "${tf_python}" -m compileall -q -f ${tf_paths}
                            "${tf_site}/testfence.py" "${tf_site}/_testfence"
                    RESULT_VARIABLE tf_rc)
endif()
if(NOT tf_rc EQUAL 0 OR NOT tf_tag)
    message(FATAL_ERROR "${tf_python} could not compile the plugin in ${tf_site} (${tf_rc}); "
                        "-DTESTFENCE_PYTHON= installs it without bytecode")
endif()
# Only the files just written (pytest's rewritten testfence.*-pytest-*.pyc is not ours).
file(GLOB tf_bytecode "${tf_site}/__pycache__/testfence.${tf_tag}.pyc"
     "${tf_site}/_testfence/__pycache__/*.${tf_tag}.pyc"
     "${tf_site}/_testfence/childguard/__pycache__/*.${tf_tag}.pyc")
foreach(f IN LISTS tf_bytecode)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${f}")
    message(STATUS "Installing: ${f}")
endforeach()

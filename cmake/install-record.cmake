# After the plugin's files are installed: the dist-info's RECORD, which pip reads to
# uninstall them (paths relative to the plugin's directory; hashes are optional there).
# In: TF_PYTHON_DIR, tf_distinfo_name, tf_bytecode (install-bytecode.cmake's .pyc files).
set(tf_site "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${TF_PYTHON_DIR}")
file(GLOB tf_meta RELATIVE "${tf_site}" "${tf_site}/${tf_distinfo_name}/*")
file(GLOB tf_package RELATIVE "${tf_site}" "${tf_site}/_testfence/*.py" "${tf_site}/_testfence/childguard/*.py")
foreach(f IN LISTS tf_bytecode) # install-bytecode.cmake's, which pip removes on uninstall too
    file(RELATIVE_PATH f "${tf_site}" "${f}")
    list(APPEND tf_package "${f}")
endforeach()
list(REMOVE_ITEM tf_meta "${tf_distinfo_name}/RECORD")
set(tf_record "")
foreach(f testfence.py ${tf_package} ${tf_meta})
    string(APPEND tf_record "${f},,\n")
endforeach()
string(APPEND tf_record "${tf_distinfo_name}/RECORD,,\n")
file(WRITE "${tf_site}/${tf_distinfo_name}/RECORD" "${tf_record}")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${tf_site}/${tf_distinfo_name}/RECORD")
message(STATUS "Installing: ${tf_site}/${tf_distinfo_name}/RECORD")

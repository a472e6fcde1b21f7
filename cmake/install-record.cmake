# After the plugin's files are installed: the dist-info's RECORD, which pip reads to
# uninstall them (paths relative to the plugin's directory; hashes are optional there).
# In: TF_PYTHON_DIR, tf_site (install-begin.cmake), tf_distinfo_name, tf_plugin_py (the
# plugin's files), tf_plugin_native (its compiled binding, or empty), tf_bytecode
# (install-bytecode.cmake's .pyc files), each relative to TF_PYTHON_DIR.
file(GLOB tf_meta RELATIVE "${tf_site}" "${tf_site}/${tf_distinfo_name}/*")
list(REMOVE_ITEM tf_meta "${tf_distinfo_name}/RECORD")
set(tf_record "")
foreach(f ${tf_plugin_py} ${tf_plugin_native} ${tf_bytecode} ${tf_meta})
    string(APPEND tf_record "${f},,\n")
endforeach()
string(APPEND tf_record "${tf_distinfo_name}/RECORD,,\n")
file(WRITE "${tf_site}/${tf_distinfo_name}/RECORD" "${tf_record}")
# The manifest names files where they are at run time, as CMake's own entries do.
list(APPEND CMAKE_INSTALL_MANIFEST_FILES
     "${CMAKE_INSTALL_PREFIX}/${TF_PYTHON_DIR}/${tf_distinfo_name}/RECORD")
message(STATUS "Installing: ${tf_site}/${tf_distinfo_name}/RECORD")

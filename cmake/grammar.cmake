# The tree-sitter-python grammar of the audit's parser benchmark (bench/audit_parsers.sh; the
# audit itself has its own parser since issue 16): fetched (pinned, hash-checked)
# by scripts/fetch-grammar.sh at configure time, so `make` works from a clean clone. The
# script does nothing when the verified grammar is already in third_party/ (a copy, an
# sdist), and configure runs again whenever the script (its pinned version) changes.
option(TESTFENCE_FETCH_GRAMMAR "Fetch the pinned grammar from the npm registry when it is missing" ON)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/scripts/fetch-grammar.sh)
if(TESTFENCE_FETCH_GRAMMAR)
    execute_process(COMMAND ${PROJECT_SOURCE_DIR}/scripts/fetch-grammar.sh
        RESULT_VARIABLE tf_fetch_rc)
    if(NOT tf_fetch_rc EQUAL 0)
        message(FATAL_ERROR "scripts/fetch-grammar.sh failed (exit ${tf_fetch_rc}); see its "
            "message above. It needs npm and node (scripts/deps.sh build installs them) and "
            "the npm registry, or the verified grammar in third_party/tree-sitter-python.")
    endif()
endif()

# A self-contained `testfence` (the wheel's): libtree-sitter linked statically. The parser
# benchmark asks pkg-config for PkgConfig::TREE_SITTER; FindPkgConfig keeps a target of that name
# that already exists, so defining it here first is enough.
option(TESTFENCE_STATIC_TREE_SITTER "Link libtree-sitter.a instead of libtree-sitter.so" OFF)
if(TESTFENCE_STATIC_TREE_SITTER)
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(TF_TS REQUIRED tree-sitter)
    find_library(TF_TREE_SITTER_STATIC NAMES libtree-sitter.a HINTS ${TF_TS_LIBRARY_DIRS} REQUIRED)
    add_library(PkgConfig::TREE_SITTER INTERFACE IMPORTED GLOBAL)
    set_target_properties(PkgConfig::TREE_SITTER PROPERTIES
        INTERFACE_LINK_LIBRARIES ${TF_TREE_SITTER_STATIC}
        INTERFACE_INCLUDE_DIRECTORIES "${TF_TS_INCLUDE_DIRS}")
endif()

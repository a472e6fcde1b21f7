# audit: `testfence audit`, the tree-sitter based static audit of test sources.
# Included by the top-level CMakeLists.txt after tfcore and testfence are defined.

set(TF_GRAMMAR_DIR ${CMAKE_SOURCE_DIR}/third_party/tree-sitter-python)
if(NOT EXISTS ${TF_GRAMMAR_DIR}/src/parser.c OR NOT EXISTS ${TF_GRAMMAR_DIR}/.testfence-verified)
    message(FATAL_ERROR "audit: the tree-sitter-python grammar is missing from third_party/. "
        "Run scripts/fetch-grammar.sh (scripts/deps.sh build runs it): it fetches the pinned "
        "npm package and checks its integrity hash.")
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(TREE_SITTER REQUIRED IMPORTED_TARGET tree-sitter)

# The grammar's generated C is third-party: built on its own, warnings off.
add_library(tf_grammar_python OBJECT ${TF_GRAMMAR_DIR}/src/parser.c ${TF_GRAMMAR_DIR}/src/scanner.c)
target_include_directories(tf_grammar_python PRIVATE ${TF_GRAMMAR_DIR}/src)
target_compile_options(tf_grammar_python PRIVATE -w)
set_target_properties(tf_grammar_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)

# Engine, rules, outputs and the Python front end; the fuzz target links the same library.
add_library(tfaudit STATIC
    ${CMAKE_SOURCE_DIR}/src/audit.c
    ${CMAKE_SOURCE_DIR}/src/audit_rules.c
    ${CMAKE_SOURCE_DIR}/src/audit_pathval.c
    ${CMAKE_SOURCE_DIR}/src/audit_python.c
    ${CMAKE_SOURCE_DIR}/src/audit_output.c
    $<TARGET_OBJECTS:tf_grammar_python>
)
target_include_directories(tfaudit PUBLIC ${CMAKE_SOURCE_DIR}/src)
find_package(Threads REQUIRED)
target_link_libraries(tfaudit PUBLIC tfcore PkgConfig::TREE_SITTER Threads::Threads)

target_sources(testfence PRIVATE ${CMAKE_SOURCE_DIR}/src/cmd_audit.c)
target_compile_definitions(testfence PRIVATE TESTFENCE_HAVE_AUDIT)
target_link_libraries(testfence PRIVATE tfaudit)

enable_testing()
# One source file per situation with its expected output, run through the real binary.
add_test(NAME audit/golden
    COMMAND ${CMAKE_SOURCE_DIR}/tests/audit/run_golden.sh $<TARGET_FILE:testfence>)
# Exit statuses, usage errors, --explain, directory walks and parallel determinism.
add_test(NAME audit/cli
    COMMAND ${CMAKE_SOURCE_DIR}/tests/audit/run_cli.sh $<TARGET_FILE:testfence>)
set_tests_properties(audit/golden audit/cli PROPERTIES TIMEOUT 300)

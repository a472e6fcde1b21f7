# Unit tests: tests/unit/test_<module>.c, one binary each, linked against tfcore.
function(testfence_unit_test name)
    add_executable(${name} tests/unit/${name}.c ${ARGN})
    target_link_libraries(${name} PRIVATE tfcore)
    target_include_directories(${name} PRIVATE tests/unit)
    # Test scaffolding builds paths under a short temp dir; truncation there is not a bug.
    target_compile_options(${name} PRIVATE -Wno-format-truncation)
    add_test(NAME unit/${name} COMMAND ${name})
    set_tests_properties(unit/${name} PROPERTIES WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endfunction()

testfence_unit_test(test_path)
testfence_unit_test(test_policy)
testfence_unit_test(test_workspace)
testfence_unit_test(test_config)

# Integration tests drive the real binary on throwaway projects (bats).
find_program(BATS bats REQUIRED)
file(GLOB TESTFENCE_BATS ${CMAKE_SOURCE_DIR}/tests/integration/*.bats)
foreach(f ${TESTFENCE_BATS})
    get_filename_component(n ${f} NAME_WE)
    add_test(NAME integration/${n} COMMAND ${BATS} ${f})
    set_tests_properties(integration/${n} PROPERTIES
        ENVIRONMENT "TESTFENCE=$<TARGET_FILE:testfence>;TESTFENCE_SRC=${CMAKE_SOURCE_DIR};TF_PROBE=$<TARGET_FILE:tf_probe>;TF_PROBE_STATIC=$<TARGET_FILE:tf_probe_static>;TF_NOLANDLOCK=$<TARGET_FILE:tf_nolandlock>")
endforeach()

# Helper programs the integration tests run under the fence.
add_executable(tf_probe tests/integration/progs/probe.c)
add_executable(tf_probe_static tests/integration/progs/probe.c)
target_link_options(tf_probe_static PRIVATE -static)
add_executable(tf_nolandlock tests/integration/progs/nolandlock.c)
if(TESTFENCE_SANITIZE)
    # A static binary cannot carry the sanitizer runtimes; and a program run under the
    # fence gets the uninstrumented shim preloaded ahead of any ASan runtime, which ASan
    # refuses. Like the programs a real test suite runs, these helpers stay uninstrumented.
    foreach(t tf_probe tf_probe_static)
        target_compile_options(${t} PRIVATE -fno-sanitize=all)
        target_link_options(${t} PRIVATE -fno-sanitize=all)
    endforeach()
endif()

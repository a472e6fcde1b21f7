# shim: the diagnostics layer. The violation log, the report and the hints join the core;
# libtestfence_preload.so (the LD_PRELOAD shim) is built from the same policy sources.
# Included by the top-level CMakeLists.txt after tfcore and testfence are defined.

target_sources(tfcore PRIVATE
    ${CMAKE_SOURCE_DIR}/src/vlog.c
    ${CMAKE_SOURCE_DIR}/src/hint.c
    ${CMAKE_SOURCE_DIR}/src/report.c
    ${CMAKE_SOURCE_DIR}/src/shimconf.c
    ${CMAKE_SOURCE_DIR}/src/diag.c
)

# The shim compiles the policy module's own sources (not a copy of its logic). It is
# not linked against tfcore because under TESTFENCE_SANITIZE tfcore is instrumented,
# and an ASan-instrumented preload library cannot be injected into the uninstrumented
# programs a test suite runs (python, sh): the shim is always built without sanitizers.
add_library(testfence_preload SHARED
    ${CMAKE_SOURCE_DIR}/src/shim.c
    ${CMAKE_SOURCE_DIR}/src/shim_libc.c
    ${CMAKE_SOURCE_DIR}/src/err.c
    ${CMAKE_SOURCE_DIR}/src/path.c
    ${CMAKE_SOURCE_DIR}/src/policy.c
    ${CMAKE_SOURCE_DIR}/src/shimconf.c
    ${CMAKE_SOURCE_DIR}/src/vlog.c
    ${CMAKE_SOURCE_DIR}/src/hint.c
)
target_include_directories(testfence_preload PRIVATE ${CMAKE_SOURCE_DIR}/src)
set_target_properties(testfence_preload PROPERTIES
    OUTPUT_NAME testfence_preload
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_link_libraries(testfence_preload PRIVATE ${CMAKE_DL_LIBS})
target_link_options(testfence_preload PRIVATE -Wl,-z,nodelete -Wl,--no-undefined)
if(TESTFENCE_SANITIZE)
    target_compile_options(testfence_preload PRIVATE -fno-sanitize=all)
    target_link_options(testfence_preload PRIVATE -fno-sanitize=all)
endif()
# run looks for the shim next to its binary: build both together (scripts/demo.sh
# builds only the testfence target).
add_dependencies(testfence testfence_preload)
install(TARGETS testfence_preload LIBRARY DESTINATION lib/testfence)

# Helpers the integration tests run under the shim: built without sanitizers, like
# the programs a real test suite runs.
foreach(drv tf_shimdrv tf_bench_open)
    if(drv STREQUAL tf_bench_open)
        add_executable(${drv} ${CMAKE_SOURCE_DIR}/bench/open_bench.c)
    else()
        add_executable(${drv} ${CMAKE_SOURCE_DIR}/tests/integration/progs/shimdrv.c)
    endif()
    if(TESTFENCE_SANITIZE)
        target_compile_options(${drv} PRIVATE -fno-sanitize=all)
        target_link_options(${drv} PRIVATE -fno-sanitize=all)
    endif()
endforeach()

# Unit tests, as testfence_unit_test() makes them (tests.cmake is included after this file).
foreach(name test_vlog test_report test_shimconf)
    add_executable(${name} ${CMAKE_SOURCE_DIR}/tests/unit/${name}.c)
    target_link_libraries(${name} PRIVATE tfcore)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
    target_compile_options(${name} PRIVATE -Wno-format-truncation)
    add_test(NAME unit/${name} COMMAND ${name})
    set_tests_properties(unit/${name} PROPERTIES WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endforeach()

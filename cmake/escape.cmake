# The escape corpus (tests/escape/): small drivers that each try to change something
# outside tests/ in one way, and the bats harness that runs them fenced and unfenced,
# as root and as nobody. Included by the top-level CMakeLists.txt.

find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBURING IMPORTED_TARGET liburing)
find_program(BATS bats)
if(NOT LIBURING_FOUND OR NOT BATS)
    # Configure anyway (the demo needs only the build group), but never let the corpus
    # go missing quietly: the test exists and fails, saying what to install.
    message(WARNING "escape corpus: liburing-dev or bats missing (scripts/deps.sh test)")
    add_test(NAME escape/corpus COMMAND sh -c
        "echo 'escape corpus not built: install liburing-dev and bats (scripts/deps.sh test)' >&2; exit 1")
    return()
endif()

# The drivers play the test suite's programs, which testfence runs under its LD_PRELOAD
# shim: an ASan-instrumented program refuses to start under a preload that comes first,
# so under TESTFENCE_SANITIZE they are built without sanitizers (testfence itself is
# what the sanitizer pass checks).
function(escape_plain target)
    if(TESTFENCE_SANITIZE)
        target_compile_options(${target} PRIVATE -fno-sanitize=all)
        target_link_options(${target} PRIVATE -fno-sanitize=all)
    endif()
endfunction()

set(ESCAPE_PROGS esc_open esc_ns esc_meta esc_raw esc_proc esc_uring)
foreach(p ${ESCAPE_PROGS})
    add_executable(${p} ${CMAKE_SOURCE_DIR}/tests/escape/progs/${p}.c)
    escape_plain(${p})
endforeach()
target_link_libraries(esc_uring PRIVATE PkgConfig::LIBURING)
find_package(Threads REQUIRED)
target_link_libraries(esc_proc PRIVATE Threads::Threads)

# Static twins: no dynamic loader, so no LD_PRELOAD shim; only the kernel can stop them.
foreach(p esc_open esc_raw esc_meta)
    add_executable(${p}_static ${CMAKE_SOURCE_DIR}/tests/escape/progs/${p}.c)
    target_link_options(${p}_static PRIVATE -static)
    escape_plain(${p}_static)
endforeach()

# The 32-bit syscall table from a 64-bit process (int $0x80): the path pointer must fit
# in 32 bits, so no PIE.
add_executable(esc_ia32 ${CMAKE_SOURCE_DIR}/tests/escape/progs/esc_ia32.c)
target_compile_options(esc_ia32 PRIVATE -fno-pie)
target_link_options(esc_ia32 PRIVATE -no-pie)
escape_plain(esc_ia32)

set(_esc_env "TESTFENCE=$<TARGET_FILE:testfence>" "TESTFENCE_SRC=${CMAKE_SOURCE_DIR}")
foreach(p ${ESCAPE_PROGS} esc_open_static esc_raw_static esc_meta_static esc_ia32)
    string(TOUPPER ${p} _var)
    list(APPEND _esc_env "${_var}=$<TARGET_FILE:${p}>")
endforeach()
add_test(NAME escape/corpus COMMAND ${BATS} ${CMAKE_SOURCE_DIR}/tests/escape/escape.bats)
set_tests_properties(escape/corpus PROPERTIES ENVIRONMENT "${_esc_env}")

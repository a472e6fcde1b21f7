# lib: libtestfence.so (the public API in include/testfence.h), the pytest plugin over it
# (python/testfence.py) and their install rules. Included at the end of CMakeLists.txt.

# The same sources as tfcore (whatever the other cmake/*.cmake files add to it), compiled
# again rather than linked: under TESTFENCE_SANITIZE tfcore is instrumented, and an ASan
# library cannot be loaded by an uninstrumented python3. Like the shim, never sanitized.
add_library(testfence_lib SHARED
    ${CMAKE_SOURCE_DIR}/src/libtestfence.c
    $<TARGET_PROPERTY:tfcore,SOURCES>)
target_include_directories(testfence_lib PRIVATE ${CMAKE_SOURCE_DIR}/src
    PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>)
set_target_properties(testfence_lib PROPERTIES
    OUTPUT_NAME testfence
    VERSION ${PROJECT_VERSION}
    SOVERSION 0
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_link_libraries(testfence_lib PRIVATE ${CMAKE_DL_LIBS})
target_link_options(testfence_lib PRIVATE -Wl,--no-undefined)
if(TESTFENCE_SANITIZE)
    target_compile_options(testfence_lib PRIVATE -fno-sanitize=all)
    target_link_options(testfence_lib PRIVATE -fno-sanitize=all)
endif()
# The library finds the shim beside itself (build dir) or in lib/testfence (installed).
add_dependencies(testfence_lib testfence_preload)

# The plugin: installed where /usr/bin/python3 looks (PREFIX/lib/python3/dist-packages
# for /usr, PREFIX/lib/python3.X/dist-packages otherwise), with an entry point so
# pytest loads it without -p. It finds the library two directories up (PREFIX/lib).
if(NOT TESTFENCE_PYTHON_DIR)
    if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
        set(TESTFENCE_PYTHON_DIR lib/python3/dist-packages)
    else()
        execute_process(COMMAND /usr/bin/python3 -c
            "import sys; print('python%d.%d' % sys.version_info[:2])"
            OUTPUT_VARIABLE tf_pyver OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(NOT tf_pyver)
            set(tf_pyver python3)
        endif()
        set(TESTFENCE_PYTHON_DIR lib/${tf_pyver}/dist-packages)
    endif()
endif()
set(tf_distinfo ${CMAKE_BINARY_DIR}/testfence_pytest-${PROJECT_VERSION}.dist-info)
file(WRITE ${tf_distinfo}/METADATA
    "Metadata-Version: 2.1\nName: testfence-pytest\nVersion: ${PROJECT_VERSION}\n"
    "Summary: fence every pytest run: no test writes outside tests/\n")
file(WRITE ${tf_distinfo}/entry_points.txt "[pytest11]\ntestfence = testfence\n")
file(WRITE ${tf_distinfo}/top_level.txt "testfence\n")
file(WRITE ${tf_distinfo}/INSTALLER "testfence-cmake\n")
file(WRITE ${tf_distinfo}/RECORD "")
configure_file(${CMAKE_SOURCE_DIR}/cmake/testfence.pc.in ${CMAKE_BINARY_DIR}/testfence.pc @ONLY)

install(TARGETS testfence_lib LIBRARY DESTINATION lib)
install(FILES ${CMAKE_SOURCE_DIR}/include/testfence.h DESTINATION include)
install(FILES ${CMAKE_BINARY_DIR}/testfence.pc DESTINATION lib/pkgconfig)
install(FILES ${CMAKE_SOURCE_DIR}/python/testfence.py DESTINATION ${TESTFENCE_PYTHON_DIR})
install(DIRECTORY ${tf_distinfo} DESTINATION ${TESTFENCE_PYTHON_DIR})

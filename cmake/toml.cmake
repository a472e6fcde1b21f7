# toml: the TOML parser module (src/toml.c), its toml-test decoder and its tests.
# Included by the top-level CMakeLists.txt after tfcore is defined.

target_sources(tfcore PRIVATE ${CMAKE_SOURCE_DIR}/src/toml.c)

# Reads TOML on stdin, prints toml-test's tagged JSON (tests/toml/run_conformance.sh uses it).
add_executable(toml_decoder ${CMAKE_SOURCE_DIR}/tests/toml/decoder.c)
target_link_libraries(toml_decoder PRIVATE tfcore)

enable_testing()

add_executable(test_toml ${CMAKE_SOURCE_DIR}/tests/unit/test_toml.c)
target_link_libraries(test_toml PRIVATE tfcore)
target_include_directories(test_toml PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
add_test(NAME unit/test_toml COMMAND test_toml)
set_tests_properties(unit/test_toml PROPERTIES WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

# The official corpus lives outside the repository (../shared/toml-test); 77 = skipped.
add_test(NAME toml/conformance
    COMMAND ${CMAKE_SOURCE_DIR}/tests/toml/run_conformance.sh $<TARGET_FILE:toml_decoder>)
set_tests_properties(toml/conformance PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# Every TOML file shipped on this machine must decode exactly as Python's tomllib reads it.
add_test(NAME toml/system_files
    COMMAND ${CMAKE_SOURCE_DIR}/tests/toml/check_system_files.sh $<TARGET_FILE:toml_decoder>)
set_tests_properties(toml/system_files PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

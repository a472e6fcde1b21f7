# verify: `testfence run --verify`, fingerprints of the tree outside the writable set.
# Included by the top-level CMakeLists.txt after tfcore and cmake/tests.cmake.
target_sources(tfcore PRIVATE ${CMAKE_SOURCE_DIR}/src/verify.c)
testfence_unit_test(test_verify)

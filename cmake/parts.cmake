# tf_part(NAME SOURCES... [DEPS part...] [LIBS lib...]): one part of src/ as a static
# library tf_NAME, and tf_NAME_plain, the same part for the shared objects.
#
# Two builds of a part, never more: libtestfence.so and the preload shim are loaded into
# programs we do not build (python3, sh), which cannot host an ASan runtime, so their
# parts are never instrumented. Without TESTFENCE_SANITIZE the two are one target.
# Every part is PIC with hidden visibility: linked into a .so it exports nothing a
# test program could collide with.
function(tf_part name)
    cmake_parse_arguments(P "" "" "SOURCES;DEPS;LIBS" ${ARGN})
    add_library(tf_${name} STATIC ${P_SOURCES})
    set(targets tf_${name})
    if(TESTFENCE_SANITIZE)
        add_library(tf_${name}_plain STATIC ${P_SOURCES})
        target_compile_options(tf_${name}_plain PRIVATE -fno-sanitize=all)
        list(APPEND targets tf_${name}_plain)
    else()
        add_library(tf_${name}_plain ALIAS tf_${name})
    endif()
    foreach(t ${targets})
        target_include_directories(${t} PUBLIC ${PROJECT_SOURCE_DIR}/src)
        set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
        target_link_libraries(${t} PUBLIC ${P_LIBS})
    endforeach()
    foreach(d ${P_DEPS})
        target_link_libraries(tf_${name} PUBLIC tf_${d})
        if(TESTFENCE_SANITIZE)
            target_link_libraries(tf_${name}_plain PUBLIC tf_${d}_plain)
        endif()
    endforeach()
endfunction()

# tf_plain(TARGET): a program or library that runs inside the programs a test suite
# runs (the shim, the library, helper programs under the fence) stays uninstrumented.
function(tf_plain target)
    if(TESTFENCE_SANITIZE)
        target_compile_options(${target} PRIVATE -fno-sanitize=all)
        target_link_options(${target} PRIVATE -fno-sanitize=all)
    endif()
endfunction()

# jaxcc_precompile_headers(<target> [headers...])
# jaxcc_precompile_headers(<target> REUSE_FROM <other target>)
#
# Precompiles, for a test target's sources, the headers a test file of
# jaxcc::testing starts with: the test framework's, given in the order they
# must be included (<gtest/gtest.h> <gmock/gmock.h>, or Catch2's
# <catch2/catch_all.hpp>, <catch2/catch.hpp> or the amalgamated
# catch_amalgamated.hpp), then <jaxcc/jaxcc.hpp>, <jaxcc/testing.hpp> and
# the adapter of the framework named (<jaxcc/testing/gtest.hpp> after
# GoogleTest's, <jaxcc/testing/catch.hpp> after Catch2's). Every source of
# the target then starts from the compiled headers instead of parsing them:
# a suite of several test files parses jaxcc once. REUSE_FROM shares the
# compiled headers of another target built with the same flags (one
# executable per test file). With no headers given, jaxcc's alone.
#
# A file that must see a macro before the framework's header (Catch2 v2's
# CATCH_CONFIG_MAIN) cannot start from them: give it the source property
# SKIP_PRECOMPILE_HEADERS, or keep the main in a file of its own.
#
# Installed with jaxcc's CMake package (find_package(jaxcc) defines it), and
# defined for a project that adds jaxcc with add_subdirectory/FetchContent.

function(jaxcc_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 jaxcc_pch "" "REUSE_FROM" "")
  if(jaxcc_pch_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${jaxcc_pch_REUSE_FROM})
    return()
  endif()
  set(headers ${jaxcc_pch_UNPARSED_ARGUMENTS})
  set(adapter "")
  foreach(header IN LISTS headers)
    if(header MATCHES "gtest/gtest\\.h")
      set(adapter "<jaxcc/testing/gtest.hpp>")
    elseif(header MATCHES "catch(2/catch(_all)?\\.hpp|_amalgamated\\.hpp)")
      set(adapter "<jaxcc/testing/catch.hpp>")
    endif()
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers} <jaxcc/jaxcc.hpp> <jaxcc/testing.hpp> ${adapter})
endfunction()

# In jaxcc's own build: installed beside jaxccConfig.cmake, which includes it.
if(DEFINED JAXCC_INSTALL_CMAKEDIR AND PROJECT_NAME STREQUAL "jaxcc")
  install(FILES "${CMAKE_CURRENT_LIST_FILE}" DESTINATION ${JAXCC_INSTALL_CMAKEDIR})
endif()

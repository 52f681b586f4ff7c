# Build TARGET (a target left out of `all` whose source must not compile) in
# BUILD_DIR and pass only if the build fails with every message in EXPECTED
# (separated by |): a source that compiles, or fails for another reason,
# fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled; it must not")
endif()
string(REPLACE "|" ";" expected_list "${EXPECTED}")
set(missing "")
foreach(expected IN LISTS expected_list)
  string(FIND "${out}${err}" "${expected}" at)
  if(at EQUAL -1)
    list(APPEND missing "${expected}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${TARGET}: the compiler's output lacks:\n  ${missing}\nIt was:\n${out}${err}")
endif()
message(STATUS "${TARGET}: rejected with every expected message")

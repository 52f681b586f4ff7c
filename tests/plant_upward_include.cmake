# The layering check must fail on what it forbids: copy the headers, plant an
# upward include (core/error.hpp including transforms/jit.hpp, at its top,
# which also closes a cycle) and an include below a file's top (core/none.hpp
# including core/error.hpp at its end) and a folder in no layer, and expect
# tools/check_layers.py to name all four. Run as
#   cmake -DPython3_EXECUTABLE=... -DSOURCE_DIR=<repository> -DWORK_DIR=<scratch> -P plant_upward_include.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/include/jaxcc" DESTINATION "${WORK_DIR}")
set(header "${WORK_DIR}/jaxcc/core/error.hpp")
file(READ "${header}" text)
string(REPLACE "#pragma once\n" "#pragma once\n#include \"jaxcc/transforms/jit.hpp\"\n" planted "${text}")
if(planted STREQUAL text)
  message(FATAL_ERROR "could not plant an include in ${header}")
endif()
file(WRITE "${header}" "${planted}")
file(APPEND "${WORK_DIR}/jaxcc/core/none.hpp" "#include \"jaxcc/core/error.hpp\"\n")
file(WRITE "${WORK_DIR}/jaxcc/unlayered/header.hpp" "#pragma once\n")
execute_process(COMMAND "${Python3_EXECUTABLE}" "${SOURCE_DIR}/tools/check_layers.py" --include "${WORK_DIR}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "the layering check passed a planted upward include:\n${output}")
endif()
foreach(expected "jaxcc/core/error.hpp:[0-9]+ includes jaxcc/transforms/jit.hpp: transforms/ is above core/"
                 "include cycle of [0-9]+ headers: [^\n]*jaxcc/core/error.hpp"
                 "jaxcc/core/none.hpp:[0-9]+ includes jaxcc/core/error.hpp below the file's top"
                 "folder unlayered/ is in no layer")
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the layering check failed, but without naming what was planted (${expected}):\n${output}")
  endif()
endforeach()
message(STATUS "what was planted is named")

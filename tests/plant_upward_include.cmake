# The layering check must fail on an upward include: copy the headers, plant
# one (core/error.hpp including transforms/jit.hpp, at its top), and expect
# tools/check_layers.py to name it. Run as
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
execute_process(COMMAND "${Python3_EXECUTABLE}" "${SOURCE_DIR}/tools/check_layers.py" --include "${WORK_DIR}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "the layering check passed a planted upward include:\n${output}")
endif()
if(NOT output MATCHES "jaxcc/core/error.hpp:[0-9]+ includes jaxcc/transforms/jit.hpp: transforms/ is above core/")
  message(FATAL_ERROR "the layering check failed, but without naming the planted include:\n${output}")
endif()
message(STATUS "the planted upward include is named:\n${output}")

# cmake -DBUILD_DIR=... -DEXAMPLE_DIR=... -DCOLLIDING_DIR=... -DWORK_DIR=... -P engine_example.cmake
# Installs the build into WORK_DIR/prefix; configures and builds examples/engine, and the engine
# with its own core/ and api/ headers, against it alone (CMAKE_PREFIX_PATH); runs their own ctest.
# Any failing step fails the test.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
file(GLOB_RECURSE internal RELATIVE ${WORK_DIR}/prefix/include ${WORK_DIR}/prefix/include/*)
if(NOT internal STREQUAL "tevsuite/check.h;tevsuite/check.hpp;tevsuite/check_types.hpp;tevsuite/defaults.h;tevsuite/generation.hpp;tevsuite/gtest.hpp;tevsuite/version.h")
  message(FATAL_ERROR "installed headers are not the public seven: ${internal}")
endif()
set(launcher "")
if(DEFINED ENV{CMAKE_CXX_COMPILER_LAUNCHER})
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=$ENV{CMAKE_CXX_COMPILER_LAUNCHER})
endif()
foreach(project example colliding)
  if(project STREQUAL "example")
    set(source ${EXAMPLE_DIR})
  else()
    set(source ${COLLIDING_DIR})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${source} -B ${WORK_DIR}/${project} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                          ${launcher} COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/${project} -j2 COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/${project} --output-on-failure COMMAND_ERROR_IS_FATAL ANY)
endforeach()

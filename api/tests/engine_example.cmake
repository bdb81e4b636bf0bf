# cmake -DBUILD_DIR=... -DEXAMPLE_DIR=... -DWORK_DIR=... -P engine_example.cmake
# Installs the build into WORK_DIR/prefix, configures and builds examples/engine against it alone
# (CMAKE_PREFIX_PATH), and runs the example's own ctest. Any failing step fails the test.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
set(launcher "")
if(DEFINED ENV{CMAKE_CXX_COMPILER_LAUNCHER})
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=$ENV{CMAKE_CXX_COMPILER_LAUNCHER})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${launcher}
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j2 COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build --output-on-failure COMMAND_ERROR_IS_FATAL ANY)

# cmake -DBUILD_DIR=... -DWORK_DIR=... -DPYTHON=... -DLIBDIR=... -P installed_package.cmake
# Installs the build into WORK_DIR/prefix and runs a small check through the installed package,
# with only WORK_DIR/prefix/LIBDIR/python on PYTHONPATH.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK_DIR}/prefix/${LIBDIR}/python PYTHONDONTWRITEBYTECODE=1
                        ${PYTHON} -c "import tevsuite, os; r = tevsuite.check_tree(lambda c, g: ([], 0), cases=1, samples=100); \
assert tevsuite.__file__.startswith(os.environ['PYTHONPATH']), tevsuite.__file__; \
assert r.verdict == tevsuite.Verdict.NOT_EXACT, r.describe(); print('installed package:', tevsuite.__file__, r.verdict_text)"
                COMMAND_ERROR_IS_FATAL ANY)

# cmake -DBUILD_DIR=... -DWORK_DIR=... -DPYTHON=... -P installed_package.cmake
# Makes a fresh venv in WORK_DIR/venv, installs the build into its prefix (`cmake --install
# --prefix`), and runs a small check through the package with the venv's interpreter alone: no
# PYTHONPATH, from WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${PYTHON} -m venv --system-site-packages --without-pip ${WORK_DIR}/venv COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/venv COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH PYTHONDONTWRITEBYTECODE=1 ${WORK_DIR}/venv/bin/python -c
                        "import tevsuite, sys; r = tevsuite.check_tree(lambda c, g: ([], 0), cases=1, samples=100); \
assert tevsuite.__file__.startswith(sys.prefix), (tevsuite.__file__, sys.prefix); \
assert r.verdict == tevsuite.Verdict.NOT_EXACT, r.describe(); print('installed package:', tevsuite.__file__, tevsuite.__version__, r.verdict_text)"
                WORKING_DIRECTORY ${WORK_DIR} COMMAND_ERROR_IS_FATAL ANY)

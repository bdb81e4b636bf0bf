"""One version everywhere: the package's __version__ (the library's tevsuite::version()) against the
C API's tev_version(), the headers' TEVSUITE_VERSION_* it was compiled with, the CMake project
version (TEVSUITE_EXPECTED_VERSION, which ctest sets), the package metadata and `tevsuite
--version` (TEVSUITE_PROGRAM, where the program is built)."""
import importlib.metadata
import os
import pathlib
import subprocess
import sys

import pytest

import tevsuite
from tevsuite import _tevsuite


def test_library_c_api_and_headers_agree():
    assert tevsuite.__version__ == _tevsuite._c_version == _tevsuite._header_version
    assert ".".join(map(str, _tevsuite._header_version_parts)) == tevsuite.__version__


@pytest.mark.skipif("TEVSUITE_EXPECTED_VERSION" not in os.environ, reason="the project version comes from ctest (TEVSUITE_EXPECTED_VERSION)")
def test_the_project_version():
    assert tevsuite.__version__ == os.environ["TEVSUITE_EXPECTED_VERSION"]


def installed_metadata_version():
    """The version of the installed distribution that holds the imported package; None when the
    package is imported from elsewhere (a build tree)."""
    try:
        dist = importlib.metadata.distribution("tevsuite")
    except importlib.metadata.PackageNotFoundError:
        return None
    owns = pathlib.Path(dist.locate_file("tevsuite/__init__.py")).resolve() == pathlib.Path(tevsuite.__file__).resolve()
    return dist.version if owns else None


def test_the_package_metadata():
    version = installed_metadata_version()
    if version is None:
        source = os.environ.get("TEVSUITE_SOURCE_DIR")
        if source is None:
            pytest.skip("neither installed nor given its source tree (TEVSUITE_SOURCE_DIR)")
        # The metadata's version as setup.py gives it to the build backend.
        version = subprocess.run([sys.executable, "setup.py", "--version"], cwd=source, capture_output=True, text=True, check=True).stdout.split()[-1]
    assert version == tevsuite.__version__


@pytest.mark.skipif("TEVSUITE_PROGRAM" not in os.environ, reason="the program is not built (TEVSUITE_PROGRAM)")
def test_the_program():
    out = subprocess.run([os.environ["TEVSUITE_PROGRAM"], "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"tevsuite {tevsuite.__version__}"

"""Builds the Python package `tevsuite` with CMake (pyproject.toml names setuptools as the backend).

The extension is CMake's: a library-only configuration (no program, no tests) that builds the
pybind11 module's target and what it links, installs the shared library and the module into a
staging prefix, and copies both into the package, the module finding the library beside it. The
version is the CMake project version, read from CMakeLists.txt: the one place it is written.

    pip install --no-build-isolation .          (Debian: python3-pip python3-setuptools python3-wheel)
    python3 -m build --wheel --no-isolation     (Debian: python3-build)

The environment reaches CMake: CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache, with its CCACHE_*
settings) and CMAKE_BUILD_PARALLEL_LEVEL (default: every CPU); TEVSUITE_BUILD_DIR sets where the
CMake build goes (default: build-python3.X beside this file, one per interpreter), so a second
build is incremental. A build folder one level below the source, as build/ is, lets ccache reuse
the objects of the main build: it hashes include paths relative to the folder it compiles in.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent
BUILD = Path(os.environ.get("TEVSUITE_BUILD_DIR") or SOURCE / f"build-python{sys.version_info[0]}.{sys.version_info[1]}").resolve()
BUILD.mkdir(parents=True, exist_ok=True)  # egg_info writes the metadata there, not into the source tree


def project_version():
    """project(tevsuite VERSION x.y.z ...) in CMakeLists.txt."""
    match = re.search(r"^project\(tevsuite VERSION (\d+\.\d+\.\d+)\b", (SOURCE / "CMakeLists.txt").read_text(), re.MULTILINE)
    if match is None:
        raise RuntimeError("CMakeLists.txt has no project(tevsuite VERSION x.y.z ...)")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        cmake_build, staging = BUILD, BUILD / "staging"
        # The package's own layout in the staging prefix: module and library in site/tevsuite.
        configure = ["cmake", "-S", str(SOURCE), "-B", str(cmake_build), "-DCMAKE_BUILD_TYPE=Release", "-DTEV_LIBRARY_ONLY=ON",
                     "-DTEV_BUILD_TESTS=OFF", "-DTEV_PYTHON=ON", f"-DTEV_PYTHON_EXECUTABLE={sys.executable}",
                     "-DTEV_PYTHON_INSTALL_DIR=site", "-DCMAKE_INSTALL_LIBDIR:PATH=site/tevsuite"]
        if os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER"):
            configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={os.environ['CMAKE_CXX_COMPILER_LAUNCHER']}")
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(cmake_build), "--target", "tevsuite_python", "-j", jobs], check=True)
        shutil.rmtree(staging, ignore_errors=True)
        for component in ("tevsuite_runtime", "tevsuite_python"):
            subprocess.run(["cmake", "--install", str(cmake_build), "--prefix", str(staging), "--component", component], check=True)
        built = staging / "site" / "tevsuite"
        module = Path(self.get_ext_fullpath(ext.name))
        module.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built / module.name, module)
        # The library by its SONAME alone (a symlink to the versioned file): a wheel holds no links.
        for library in built.glob("libtevsuite_check.so.*"):
            if library.is_symlink():
                shutil.copyfile(library, module.parent / library.name)


setup(
    version=project_version(),
    ext_modules=[Extension("tevsuite._tevsuite", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD / "setuptools")}, "egg_info": {"egg_base": str(BUILD)}},
)

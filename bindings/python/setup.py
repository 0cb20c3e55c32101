"""Build hooks of the gpuopt wheel (metadata: pyproject.toml).

build_py copies libgpuopt into the package as gpuopt/libgpuopt.so.0, where _lib.py looks for it,
and writes gpuopt/_build_info.json (where the library came from, its CMake build type and CUDA
architectures, the CUDA compiler, the git revision), which ``python -m gpuopt`` prints.
The library comes from, first match wins:
  1. GPUOPT_LIBRARY_DIR (environment): a directory holding libgpuopt.so.0 or libgpuopt.so;
  2. the newest build/*/src/libgpuopt.so* or build-*/src/libgpuopt.so* of the repository;
  3. a CMake build of the target ``gpuopt`` alone in <repository>/build/python-wheel (extra
     configure arguments from GPUOPT_CMAKE_ARGS, e.g. -DGPUOPT_CUDA_ARCHITECTURES=90a).
bdist_wheel tags the wheel py3-none-<platform>: it carries a Linux shared library.
"""
import datetime
import glob
import json
import os
import re
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has bdist_wheel itself; before, the wheel package provides it
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SONAME = "libgpuopt.so.0"


def _say(msg):
    print(f"gpuopt build: {msg}", flush=True)


def _library_in(directory):
    """The real file behind libgpuopt.so.0 (or libgpuopt.so) in ``directory``, or None."""
    for name in (SONAME, "libgpuopt.so"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return os.path.realpath(path)
    return None


def _is_repository(root):
    try:
        with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
            return re.search(r"project\(gpuopt\b", f.read()) is not None
    except OSError:
        return False


def _newest_build_tree_library():
    found = {os.path.realpath(p) for pattern in ("build/*/src/libgpuopt.so*",
                                                 "build-*/src/libgpuopt.so*")
             for p in glob.glob(os.path.join(ROOT, pattern))}
    found = [p for p in found if os.path.isfile(p)]
    return max(found, key=os.path.getmtime) if found else None


def _cmake_build():
    build = os.path.join(ROOT, "build", "python-wheel")
    configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DGPUOPT_BUILD_TESTS=OFF", "-DGPUOPT_BUILD_BENCH=OFF",
                 "-DGPUOPT_BUILD_EXAMPLES=OFF", "-DGPUOPT_BUILD_BINDINGS=OFF",
                 "-DGPUOPT_BUILD_DOCS=OFF", "-DGPUOPT_BUILD_STATIC=OFF",
                 "-DGPUOPT_BUILD_RUST=OFF"] + shlex.split(os.environ.get("GPUOPT_CMAKE_ARGS", ""))
    _say("no libgpuopt found: building it with CMake in " + build)
    try:
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build, "--target", "gpuopt", "--parallel"],
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"gpuopt build: building libgpuopt with CMake failed ({e}); build it "
                         "yourself and set GPUOPT_LIBRARY_DIR to the directory holding it")
    return _library_in(os.path.join(build, "src"))


def find_library():
    """(path of the library file, how it was found)."""
    env = os.environ.get("GPUOPT_LIBRARY_DIR")
    if env:
        lib = _library_in(env)
        if lib is None:
            raise SystemExit(f"gpuopt build: GPUOPT_LIBRARY_DIR={env} holds no {SONAME} or "
                             "libgpuopt.so")
        return lib, "GPUOPT_LIBRARY_DIR"
    if not _is_repository(ROOT):
        raise SystemExit("gpuopt build: no libgpuopt to package: set GPUOPT_LIBRARY_DIR to the "
                         f"directory holding {SONAME} (this source is not inside the gpuopt "
                         "repository, so there is no build tree to take it from or to make)")
    lib = _newest_build_tree_library()
    if lib:
        return lib, "the repository's newest build tree"
    lib = _cmake_build()
    if lib is None:
        raise SystemExit("gpuopt build: the CMake build made no libgpuopt")
    return lib, "a CMake build of the target gpuopt"


def _cmake_cache(build_dir):
    values = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"([A-Za-z0-9_]+):[A-Z]+=(.*)", line.rstrip("\n"))
                if m:
                    values[m.group(1)] = m.group(2)
    except OSError:
        pass
    return values


def _cuda_compiler_version(build_dir):
    for path in glob.glob(os.path.join(build_dir, "CMakeFiles", "*", "CMakeCUDACompiler.cmake")):
        with open(path, encoding="utf-8") as f:
            m = re.search(r'set\(CMAKE_CUDA_COMPILER_VERSION "([^"]+)"\)', f.read())
        if m:
            return m.group(1)
    return None


def _git_revision():
    try:
        out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def build_info(lib, how):
    """What is known of the library's build: its CMake cache when it lies in a build tree."""
    info = {"library_source": lib, "found_by": how,
            "packaged": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    build_dir = os.path.dirname(os.path.dirname(lib))  # <build>/src/libgpuopt.so.*
    cache = _cmake_cache(build_dir)
    if cache:
        info["build_dir"] = build_dir
        for key, name in (("CMAKE_BUILD_TYPE", "build_type"),
                          ("GPUOPT_CUDA_ARCHITECTURES", "cuda_architectures"),
                          ("CMAKE_CUDA_COMPILER", "cuda_compiler")):
            if cache.get(key):
                info[name] = cache[key]
        version = _cuda_compiler_version(build_dir)
        if version:
            info["cuda_compiler_version"] = version
    if _is_repository(ROOT):
        rev = _git_revision()
        if rev:
            info["git_revision"] = rev
    return info


class build_py_with_library(build_py):
    """build_py, then libgpuopt and its build information into the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install loads the library as a checkout does (_lib.py)
        lib, how = find_library()
        _say(f"packaging {lib} (found through {how})")
        dest = os.path.join(self.build_lib, "gpuopt")
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(lib, os.path.join(dest, SONAME))
        os.chmod(os.path.join(dest, SONAME), 0o755)
        with open(os.path.join(dest, "_build_info.json"), "w", encoding="utf-8") as f:
            json.dump(build_info(lib, how), f, indent=1, sort_keys=True)


cmdclass = {"build_py": build_py_with_library}
if bdist_wheel is not None:
    class platform_wheel(bdist_wheel):
        """A wheel for this platform (it carries libgpuopt) but any Python 3 (ctypes only)."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none") + tuple(super().get_tag()[2:])

    cmdclass["bdist_wheel"] = platform_wheel

setup(cmdclass=cmdclass)

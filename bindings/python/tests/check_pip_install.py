#!/usr/bin/env python3
"""The pip-installed package, imported from a clean directory (ctest python_pip_install).

    python3 check_pip_install.py --library-dir build/dev/src

1. picks a Python that can build the wheel offline: this one, else the next python3 on PATH
   with setuptools >= 61, a bdist_wheel (setuptools >= 70.1 or the wheel package) and pip;
   none: exit 77 (skipped) with what is missing;
2. copies bindings/python (pyproject.toml, setup.py, gpuopt/) to a temporary directory and
   ``pip install --no-build-isolation --no-deps --no-index`` it into a new virtual environment
   (--system-site-packages, so pip and setuptools come from that Python), with
   GPUOPT_LIBRARY_DIR naming the library to carry;
3. from an empty directory, with PYTHONPATH, GPUOPT_LIBRARY and LD_LIBRARY_PATH unset: imports
   gpuopt (the library must be the copy inside the installed package, PyTorch must not be
   imported), checks the wheel's tags (platform-specific, not pure), runs ``python -m gpuopt``
   and the ``gpuopt-info`` command.
Exit 0 on success, 1 with the failing step's output otherwise.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SRC = os.path.dirname(HERE)  # bindings/python
SKIP = 77

PROBE = r"""
import sys
try:
    import setuptools, pip  # noqa: F401
except ImportError as e:
    sys.exit(f"lacks {e.name}")
major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
if (major, minor) < (61, 0):
    sys.exit(f"setuptools {setuptools.__version__} < 61 (no pyproject.toml [project] table)")
try:
    from setuptools.command.bdist_wheel import bdist_wheel  # noqa: F401
except ImportError:
    try:
        import wheel  # noqa: F401
    except ImportError:
        sys.exit(f"setuptools {setuptools.__version__} has no bdist_wheel and the wheel "
                 "package is missing")
"""


def _pythons():
    """This interpreter, then every python3 on PATH (each real file once)."""
    seen, out = set(), []
    cands = [sys.executable] + [os.path.join(d, "python3")
                                for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            real = os.path.realpath(c)
            if real not in seen:
                seen.add(real)
                out.append(c)
    return out


def _builder():
    reasons = []
    for py in _pythons():
        r = subprocess.run([py, "-c", PROBE], capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            return py, reasons
        reasons.append(f"{py}: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return None, reasons


def _run(step, cmd, env, cwd, timeout=120):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        print(f"FAILED: {step}: {' '.join(cmd)} (exit {r.returncode})\n{r.stdout}\n{r.stderr}")
        sys.exit(1)
    print(f"ok: {step}")
    return r.stdout


IMPORT_CHECK = r"""
import os, sys
import gpuopt
pkg = os.path.dirname(os.path.realpath(gpuopt.__file__))
assert pkg.startswith(os.path.realpath(sys.prefix)), (pkg, sys.prefix)  # the installed copy
lib = os.path.realpath(gpuopt.library_path)
assert os.path.dirname(lib) == pkg, f"library {lib} is not the packaged one in {pkg}"
assert "torch" not in sys.modules, "import gpuopt imported torch"
assert gpuopt.version() == gpuopt.GPUOPT_VERSION, (gpuopt.version(), gpuopt.GPUOPT_VERSION)
info = gpuopt.build_info()
assert info and info["found_by"] == "GPUOPT_LIBRARY_DIR", info
assert gpuopt.device_count() >= 0
print("gpuopt", gpuopt.version_string(), "from", pkg, "library", lib)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library-dir", required=True, help="directory holding libgpuopt.so.0")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    py, reasons = _builder()
    if py is None:
        print("SKIPPED: no python3 can build the wheel offline:\n  " + "\n  ".join(reasons) +
              "\n(install python3-setuptools python3-wheel python3-pip, or pip install wheel)")
        return SKIP
    print(f"building with {py}")
    tmp = tempfile.mkdtemp(prefix="gpuopt-pip-")
    try:
        src, venv, run_dir = (os.path.join(tmp, d) for d in ("src", "venv", "run"))
        os.makedirs(src)
        os.makedirs(run_dir)
        for name in ("pyproject.toml", "setup.py"):
            shutil.copy(os.path.join(PACKAGE_SRC, name), src)
        shutil.copytree(os.path.join(PACKAGE_SRC, "gpuopt"), os.path.join(src, "gpuopt"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so*",
                                                      "_build_info.json"))
        clean = {key: v for key, v in os.environ.items()
                 if key not in ("PYTHONPATH", "GPUOPT_LIBRARY", "GPUOPT_LIBRARY_DIR",
                                "LD_LIBRARY_PATH", "PYTHONHOME", "VIRTUAL_ENV")
                 and not key.startswith("PIP_")}
        clean["PYTHONDONTWRITEBYTECODE"] = "1"
        _run("venv", [py, "-m", "venv", "--system-site-packages", "--without-pip", venv], clean,
             tmp)
        vpy = os.path.join(venv, "bin", "python")
        build_env = dict(clean, GPUOPT_LIBRARY_DIR=os.path.abspath(args.library_dir),
                         PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
        _run("pip install", [vpy, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                             "--no-index", "--no-cache-dir", src], build_env, tmp, timeout=300)
        out = _run("import from a clean directory", [vpy, "-c", IMPORT_CHECK], clean, run_dir)
        print("  " + out.strip())
        dist = [d for d in os.listdir(_site_packages(vpy, clean)) if d.startswith("gpuopt-")
                and d.endswith(".dist-info")]
        with open(os.path.join(_site_packages(vpy, clean), dist[0], "WHEEL")) as f:
            wheel = f.read()
        if "Root-Is-Purelib: false" not in wheel or "Tag: py3-none-linux" not in wheel:
            print(f"FAILED: the wheel is not platform-specific py3-none-linux_*:\n{wheel}")
            return 1
        print("ok: platform wheel (" + [ln for ln in wheel.splitlines()
                                        if ln.startswith("Tag:")][0] + ")")
        out = _run("python -m gpuopt", [vpy, "-m", "gpuopt"], clean, run_dir)
        for want in ("gpuopt ", "library: ", "build: ", "devices: ", "variants"):
            if want not in out:
                print(f"FAILED: python -m gpuopt printed no {want!r}:\n{out}")
                return 1
        print("  " + out.strip().replace("\n", "\n  "))
        _run("gpuopt-info", [os.path.join(venv, "bin", "gpuopt-info"), "--json"], clean,
             run_dir)
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _site_packages(vpy, env):
    return subprocess.run([vpy, "-c", "import gpuopt, os; print(os.path.dirname("
                           "os.path.dirname(os.path.realpath(gpuopt.__file__))))"], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())

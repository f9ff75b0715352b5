"""Runs the Python package's checks against the INSTALLED wheel: smoke.py
(a subprocess under a 30 s bound) and every test module of
bindings/python/tests (unittest), then prints one closing line
``N passed, N failed`` and exits non-zero on any failure.

Run it with the interpreter of the virtualenv the wheel went into, from a
directory outside the source tree (tests/python/run.sh does both).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "bindings" / "python"
SMOKE_SECONDS = 30


def run_smoke() -> bool:
    # Copied out of the source tree: a script's own directory leads sys.path,
    # and bindings/python/weida must not shadow the installed package.
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "smoke.py"
        shutil.copy(PACKAGE / "smoke.py", script)
        try:
            done = subprocess.run([sys.executable, str(script)], cwd=tmp, timeout=SMOKE_SECONDS)
        except subprocess.TimeoutExpired:
            print(f"smoke: FAILED, still running after {SMOKE_SECONDS} s", flush=True)
            return False
    if done.returncode != 0:
        print(f"smoke: FAILED with exit status {done.returncode}", flush=True)
    return done.returncode == 0


def installed_problem() -> str:
    """Why this is not an installed package with no Go around, or ""."""
    try:
        import weida
    except ImportError as e:
        return f"weida does not import: {e}"
    where = Path(weida.__file__).resolve()
    if PACKAGE in where.parents or "site-packages" not in where.parts:
        return f"weida was imported from {where}, not from an installed wheel"
    if shutil.which("go"):
        return f"go is on PATH ({shutil.which('go')}); the wheel must work without it"
    print(f"runner: testing {where.parent} (no go on PATH)", flush=True)
    return ""


def main() -> int:
    problem = installed_problem()
    if problem:
        print(f"runner: {problem}\n0 passed, 1 failed")
        return 1
    smoke_ok = run_smoke()
    suite = unittest.defaultTestLoader.discover(str(PACKAGE / "tests"), top_level_dir=str(PACKAGE / "tests"))
    result = unittest.TextTestRunner(verbosity=int(os.environ.get("VERBOSE", "1")), stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses) + (0 if smoke_ok else 1)
    passed = result.testsRun + 1 - failed - len(result.skipped)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

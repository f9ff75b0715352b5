"""Assembles the weida wheel from this directory and a built libweida.so,
with the standard library only (no network, no build backend).

    python3 wheel.py --lib PATH/libweida.so --dist DIR

A wheel is a zip: the package files under ``weida/`` (libweida.so bundled
beside them) and ``weida-<version>.dist-info/`` holding METADATA, WHEEL and
RECORD (every file's sha256 and size). The platform tag is derived from the
library itself: when it links only the C library and loader and needs glibc
symbol versions up to X.Y, it is ``manylinux_X_Y_<arch>`` (PEP 600: such a
library runs on any distribution with glibc >= X.Y); otherwise it falls back
to ``linux_<arch>``. Entries are sorted and time-stamped from
SOURCE_DATE_EPOCH (default 2024-01-01), so the same inputs give the same
bytes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import platform
import re
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "weida"
# Libraries a manylinux wheel may link without bundling (PEP 600/599 policy).
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                  "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def project() -> dict:
    """The [project] table of pyproject.toml, checked against __version__."""
    meta = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]
    init = (PACKAGE / "__init__.py").read_text()
    found = re.search(r'^__version__ = "([^"]+)"$', init, re.M)
    if not found or found.group(1) != meta["version"]:
        sys.exit(f"wheel: weida/__init__.py __version__ is {found and found.group(1)!r}, "
                 f"pyproject.toml says {meta['version']!r}")
    return meta


def platform_tag(lib: Path) -> str:
    """manylinux_X_Y_<arch> when the library qualifies, else linux_<arch>."""
    arch = platform.machine()
    dynamic = subprocess.run(["objdump", "-p", "-T", str(lib)], check=True, capture_output=True,
                             text=True).stdout
    needed = set(re.findall(r"^\s+NEEDED\s+(\S+)$", dynamic, re.M))
    glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+)", dynamic)]
    if needed <= MANYLINUX_LIBS and glibc:
        major, minor = max(glibc)
        return f"manylinux_{major}_{minor}_{arch}"
    return f"linux_{arch}"


def metadata(meta: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {meta['name']}", f"Version: {meta['version']}",
             f"Summary: {meta['description']}", f"Requires-Python: {meta['requires-python']}",
             f"Keywords: {','.join(meta.get('keywords', []))}"]
    lines += [f"Classifier: {c}" for c in meta.get("classifiers", [])]
    readme = HERE / meta.get("readme", "README.md")
    if readme.exists():
        lines += ["Description-Content-Type: text/markdown", "", readme.read_text()]
    return "\n".join(lines) + "\n"


def package_files(lib: Path) -> list:
    """(archive name, bytes, mode) of every file the package ships."""
    files = []
    for path in sorted(PACKAGE.iterdir()):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            files.append((f"weida/{path.name}", path.read_bytes(), 0o644))
    files.append(("weida/libweida.so", lib.read_bytes(), 0o755))
    return files


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(lib: Path, dist: Path) -> Path:
    meta = project()
    name, version = meta["name"], meta["version"]
    tag = f"py3-none-{platform_tag(lib)}"
    info = f"{name}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: weida wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files = package_files(lib)
    files += [(f"{info}/METADATA", metadata(meta).encode(), 0o644),
              (f"{info}/WHEEL", wheel.encode(), 0o644)]
    record = "\n".join([record_line(n, d) for n, d, _ in files] + [f"{info}/RECORD,,"]) + "\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))

    dist.mkdir(parents=True, exist_ok=True)
    for old in dist.glob(f"{name}-*.whl"):
        old.unlink()
    out = dist / f"{name}-{version}-{tag}.whl"
    stamp = time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", "1704067200")))[:6]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, mode in files:
            entry = zipfile.ZipInfo(arcname, date_time=stamp)
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, type=Path, help="the built libweida.so")
    ap.add_argument("--dist", required=True, type=Path, help="directory for the wheel")
    args = ap.parse_args()
    print(f"wheel: built {build(args.lib.resolve(), args.dist.resolve())}")


if __name__ == "__main__":
    main()

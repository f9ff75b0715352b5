# SPDX-License-Identifier: Apache-2.0
"""Assembles the weida wheel from this directory and a built libweida.so,
with the standard library only (no network, no build backend).

    python3 wheel.py --lib PATH/libweida.so --dist DIR [--max-glibc 2.31] [--keep]

A wheel is a zip: the package files under ``weida/`` (libweida.so bundled
beside them) and ``weida-<version>.dist-info/`` holding METADATA, WHEEL,
RECORD (every file's sha256 and size) and the LICENSE. The version is the
repository's VERSION file, written in PEP 440 form into METADATA and into the
packaged ``weida/__init__.py``. The platform tag is derived from the library
itself, never assumed: the architecture from its ELF header, and, when it
links only libraries the manylinux policy allows and its dynamic symbols
(``objdump -T``) need glibc versions up to X.Y, ``manylinux_X_Y_<arch>``
(PEP 600: such a library runs on any distribution with glibc >= X.Y);
otherwise ``linux_<arch>``. ``--glibc-floor`` raises X.Y to the glibc the
library was built against (build/portable.sh: Debian 11's 2.31), the oldest
one its tests ran on; with ``--max-glibc``, a library that needs more is
refused instead of tagged. Entries are sorted and time-stamped from SOURCE_DATE_EPOCH
(default 2024-01-01), so the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "weida"
REPO = HERE.parent.parent
#: ELF e_machine -> (wheel architecture, the objdump that reads it).
MACHINES = {62: ("x86_64", "objdump"), 183: ("aarch64", "aarch64-linux-gnu-objdump")}
# Libraries a manylinux wheel may link without bundling (PEP 600/599 policy).
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                  "libresolv.so.2", "libutil.so.1", "libnsl.so.1", "libgcc_s.so.1",
                  "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def pep440(version: str) -> str:
    """VERSION's form (1.2.3, 1.2.3-dev, 1.2.3-rc.1) as PEP 440 (1.2.3.dev0, 1.2.3rc1)."""
    found = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(dev|alpha|beta|rc)(?:\.(\d+))?)?", version)
    if not found:
        sys.exit(f"wheel: VERSION {version!r} is not X.Y.Z[-dev|-alpha|-beta|-rc[.N]]")
    base, pre, n = found.groups()
    if pre is None:
        return base
    if pre == "dev":
        return f"{base}.dev{n or 0}"
    return f"{base}{dict(alpha='a', beta='b', rc='rc')[pre]}{n or 0}"


def project() -> dict:
    """The [project] table of pyproject.toml, its version from VERSION."""
    meta = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]
    if "version" in meta:
        sys.exit("wheel: pyproject.toml must not name a version (the VERSION file does)")
    meta["version"] = pep440((REPO / "VERSION").read_text().strip())
    return meta


def elf_machine(lib: Path) -> tuple:
    """(wheel architecture, objdump) for the ELF file's e_machine."""
    with lib.open("rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF" or head[5] != 1:
        sys.exit(f"wheel: {lib} is not a little-endian ELF file")
    machine = int.from_bytes(head[18:20], "little")
    if machine not in MACHINES:
        sys.exit(f"wheel: {lib} is for ELF machine {machine}; supported: x86_64 (62), aarch64 (183)")
    arch, objdump = MACHINES[machine]
    return arch, os.environ.get("OBJDUMP", objdump)


def platform_tag(lib: Path, max_glibc: tuple | None, floor: tuple | None = None) -> str:
    """manylinux_X_Y_<arch> when the library qualifies, else linux_<arch>. X.Y is
    the newest glibc symbol version it needs, raised to ``floor`` (the glibc it
    was built and tested against) when that is newer: the symbols bound what
    it can load on, the build bounds what was shown to work."""
    arch, objdump = elf_machine(lib)
    dynamic = subprocess.run([objdump, "-p", "-T", str(lib)], check=True, capture_output=True,
                             text=True).stdout
    needed = set(re.findall(r"^\s+NEEDED\s+(\S+)$", dynamic, re.M))
    glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+)", dynamic)]
    highest = max(glibc, default=None)
    dotted = ".".join(map(str, highest)) if highest else "none"
    print(f"wheel: {lib.name} ({arch}) needs glibc {dotted}, links {', '.join(sorted(needed))}")
    if max_glibc and (not highest or highest > max_glibc or not needed <= MANYLINUX_LIBS):
        sys.exit(f"wheel: refusing to tag {lib}: it needs glibc {dotted} and links {', '.join(sorted(needed))};"
                 f" allowed: glibc {'.'.join(map(str, max_glibc))} at most, only {', '.join(sorted(MANYLINUX_LIBS))}")
    if needed <= MANYLINUX_LIBS and highest:
        major, minor = max(highest, floor or highest)
        return f"manylinux_{major}_{minor}_{arch}"
    return f"linux_{arch}"


def metadata(meta: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {meta['name']}", f"Version: {meta['version']}",
             f"Summary: {meta['description']}", f"License: {meta['license']}",
             f"Requires-Python: {meta['requires-python']}",
             f"Keywords: {','.join(meta.get('keywords', []))}"]
    lines += [f"Classifier: {c}" for c in meta.get("classifiers", [])]
    readme = HERE / meta.get("readme", "README.md")
    if readme.exists():
        lines += ["Description-Content-Type: text/markdown", "", readme.read_text()]
    return "\n".join(lines) + "\n"


def stamped_init(source: bytes, version: str) -> bytes:
    """weida/__init__.py with __version__ set to the wheel's version."""
    text, count = re.subn(r'^__version__ = "[^"]*"$', f'__version__ = "{version}"', source.decode(),
                          count=1, flags=re.M)
    if count != 1:
        sys.exit('wheel: weida/__init__.py has no line __version__ = "..."')
    return text.encode()


def package_files(lib: Path, version: str) -> list:
    """(archive name, bytes, mode) of every file the package ships."""
    files = []
    for path in sorted(PACKAGE.iterdir()):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            data = path.read_bytes()
            if path.name == "__init__.py":
                data = stamped_init(data, version)
            files.append((f"weida/{path.name}", data, 0o644))
    files.append(("weida/libweida.so", lib.read_bytes(), 0o755))
    return files


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(lib: Path, dist: Path, max_glibc: tuple | None = None, keep: bool = False,
          floor: tuple | None = None) -> Path:
    meta = project()
    name, version = meta["name"], meta["version"]
    tag = f"py3-none-{platform_tag(lib, max_glibc, floor)}"
    info = f"{name}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: weida wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files = package_files(lib, version)
    files += [(f"{info}/LICENSE", (REPO / "LICENSE").read_bytes(), 0o644),
              (f"{info}/METADATA", metadata(meta).encode(), 0o644),
              (f"{info}/WHEEL", wheel.encode(), 0o644)]
    record = "\n".join([record_line(n, d) for n, d, _ in files] + [f"{info}/RECORD,,"]) + "\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))

    dist.mkdir(parents=True, exist_ok=True)
    for old in [] if keep else dist.glob(f"{name}-*.whl"):
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
    ap.add_argument("--max-glibc", help="refuse a library needing a newer glibc than this (e.g. 2.31)")
    ap.add_argument("--glibc-floor", help="the glibc the library was built against (e.g. 2.31): the "
                    "tag claims no older one, whatever older symbols the library needs")
    ap.add_argument("--keep", action="store_true", help="keep the wheels already in --dist")
    args = ap.parse_args()
    max_glibc, floor = (tuple(map(int, v.split("."))) if v else None for v in (args.max_glibc, args.glibc_floor))
    if max_glibc and floor and floor > max_glibc:
        sys.exit(f"wheel: built against glibc {args.glibc_floor}, more than --max-glibc {args.max_glibc}")
    print(f"wheel: built {build(args.lib.resolve(), args.dist.resolve(), max_glibc, args.keep, floor)}")


if __name__ == "__main__":
    main()

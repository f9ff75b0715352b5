#!/usr/bin/env python3
"""Writes the bindings' tables of weida.h's return codes, completion levels
and report modes, so no binding types them in by hand:

  bindings/python/weida/_abi.py   module constants and KINDS
  bindings/node/lib/abi.js        CODES, KINDS, LEVELS, REPORT_MODES

  build/gen-bindings-tables.py              rewrite both from include/weida.h
  build/gen-bindings-tables.py --check      exit 1, naming the stale file, if
                                            either differs from what it would write
  build/gen-bindings-tables.py --print python|node [--header H]
                                            write one table to stdout (the
                                            bindings' drift tests compare it
                                            with the installed package's file)

The error kinds are the codes below 100 (weida.h: "1..26: the library's
error kinds"); each one's comment starts with the library's variant name,
followed by the bindings' class name in parentheses where it differs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
HEADER = REPO / "include" / "weida.h"
OUTPUTS = {
    "python": REPO / "bindings" / "python" / "weida" / "_abi.py",
    "node": REPO / "bindings" / "node" / "lib" / "abi.js",
}
# Codes from here up are the ABI's own, not library error kinds.
ABI_CODES_FROM = 100
NOTICE = "Generated from include/weida.h by build/gen-bindings-tables.py: do not edit."


class Constant(NamedTuple):
    name: str  # without the WEIDA_ prefix
    value: int
    note: str  # the header's comment on it, "" when it has none


class Kind(NamedTuple):
    code: int
    c_name: str  # WEIDA_E...
    variant: str  # the library's name of the kind
    cls: str  # the bindings' class name


def parse_enum(header: str, enum: str) -> list[Constant]:
    """The members of `enum <enum> { ... };`, in the header's order."""
    body = re.search(r"^enum " + enum + r" \{\n(.*?)^\};", header, re.M | re.S)
    if body is None:
        raise SystemExit(f"gen-bindings-tables: no enum {enum} in weida.h")
    members = []
    for m in re.finditer(r"^\s*WEIDA_([A-Z0-9_]+) = (\d+),?[ \t]*(?:/\*\s*(.*?)\s*\*/)?[ \t]*$", body.group(1), re.M):
        members.append(Constant(m.group(1), int(m.group(2)), m.group(3) or ""))
    if not members:
        raise SystemExit(f"gen-bindings-tables: enum {enum} has no members this script can read")
    return members


def kinds_of(codes: list[Constant]) -> list[Kind]:
    kinds = []
    for c in codes:
        if not 0 < c.value < ABI_CODES_FROM:
            continue
        m = re.match(r"([A-Za-z]+)(?: \(([A-Za-z]+)\))?", c.note)
        if m is None:
            raise SystemExit(f"gen-bindings-tables: WEIDA_{c.name}'s comment does not start with its kind's name")
        kinds.append(Kind(c.value, "WEIDA_" + c.name, m.group(1), m.group(2) or m.group(1)))
    return kinds


class Tables(NamedTuple):
    codes: list[Constant]
    kinds: list[Kind]
    levels: list[Constant]
    modes: list[Constant]


def read(header_path: Path) -> Tables:
    header = header_path.read_text(encoding="utf-8")
    codes = parse_enum(header, "weida_code")
    return Tables(codes, kinds_of(codes), parse_enum(header, "weida_level"), parse_enum(header, "weida_report_mode"))


def render_python(t: Tables) -> str:
    def constants(members: list[Constant], marker: str) -> list[str]:
        return [f"{c.name} = {c.value}" + (f"  {marker} {c.note}" if c.note else "") for c in members]

    lines = [
        '"""weida.h\'s return codes (enum weida_code), completion levels (enum',
        "weida_level) and report modes (enum weida_report_mode).",
        "",
        NOTICE,
        '"""',
        "",
        "# enum weida_code",
        *constants(t.codes, "#"),
        "",
        "#: The library's error kinds in weida.h's order: (code, C name, the",
        "#: library's variant name, the binding's class name).",
        "KINDS = (",
        *(f'    ({k.code}, "{k.c_name}", "{k.variant}", "{k.cls}"),' for k in t.kinds),
        ")",
        "",
        "# enum weida_level",
        *constants(t.levels, "#:"),
        "",
        "# enum weida_report_mode",
        *constants(t.modes, "#:"),
    ]
    return "\n".join(lines) + "\n"


def render_node(t: Tables) -> str:
    def table(members: list[Constant], prefix: str) -> list[str]:
        return [f"  {prefix}{c.name}: {c.value}," + (f" // {c.note}" if c.note else "") for c in members]

    lines = [
        "'use strict';",
        "/**",
        " * weida.h's return codes (enum weida_code), completion levels (enum",
        " * weida_level) and report modes (enum weida_report_mode).",
        f" * {NOTICE}",
        " * @module weida/lib/abi",
        " */",
        "",
        "/** enum weida_code: C name -> code. */",
        "const CODES = Object.freeze({",
        *table(t.codes, "WEIDA_"),
        "});",
        "",
        "/** The library's error kinds in weida.h's order: [class name, code, the library's variant name]. */",
        "const KINDS = Object.freeze([",
        *(f"  ['{k.cls}', {k.code}, '{k.variant}']," for k in t.kinds),
        "]);",
        "",
        "/** enum weida_level: completion levels (the space is open above APPLICATION_FLOOR). */",
        "const LEVELS = Object.freeze({",
        *table(t.levels, ""),
        "});",
        "",
        "/** enum weida_report_mode. */",
        "const REPORT_MODES = Object.freeze({",
        *table(t.modes, ""),
        "});",
        "",
        "module.exports = { CODES, KINDS, LEVELS, REPORT_MODES };",
    ]
    return "\n".join(lines) + "\n"


RENDER = {"python": render_python, "node": render_node}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--header", type=Path, default=HEADER)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--print", choices=sorted(RENDER), dest="print_one")
    args = parser.parse_args()
    tables = read(args.header)
    if args.print_one:
        sys.stdout.write(RENDER[args.print_one](tables))
        return 0
    stale = 0
    for binding, path in OUTPUTS.items():
        text = RENDER[binding](tables)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"gen-bindings-tables: {path.relative_to(REPO)} differs from {args.header}; "
                      "run build/gen-bindings-tables.py", file=sys.stderr)
                stale += 1
        else:
            path.write_text(text, encoding="utf-8")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())

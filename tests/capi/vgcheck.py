#!/usr/bin/env python3
"""Judges a valgrind memcheck XML report of a program using libweida.

Usage: vgcheck.py REPORT.xml

Fails (exit 1, printing each offence) when memcheck reports a definite leak,
or any error raised by code outside libweida.so. An error is raised by the
innermost frame that is not libc, the dynamic loader or valgrind's own
malloc: memset in libc called by the example is the example's error, malloc
called by the Go runtime is the library's. Errors the library raises are Go
runtime noise memcheck cannot judge (see go-runtime.supp); the library's
own accesses to C memory are checked by the `go build -asan` run instead.
"""
import sys
import xml.etree.ElementTree as ET


# Objects that only act on a caller's behalf.
AGENTS = ("/vgpreload_", "/libc.so", "/libc-", "/ld-linux", "/libpthread")


def raiser(error):
    """The object of the innermost frame that is not an agent."""
    stack = error.find("stack")
    for frame in stack.findall("frame") if stack is not None else []:
        obj = frame.findtext("obj", "")
        if not any(a in obj for a in AGENTS):
            return obj
    return ""


def describe(error):
    what = error.findtext("what") or error.findtext("xwhat/text") or error.findtext("kind")
    lines = [what]
    stack = error.find("stack")
    for frame in (stack.findall("frame") if stack is not None else [])[:8]:
        lines.append("    at %s (%s:%s) in %s" % (frame.findtext("fn", "?"), frame.findtext("file", "?"),
                                                 frame.findtext("line", "?"), frame.findtext("obj", "?")))
    return "\n".join(lines)


def main(path):
    offences = []
    for error in ET.parse(path).getroot().iter("error"):
        kind = error.findtext("kind", "")
        if kind.startswith("Leak_"):
            if kind == "Leak_DefinitelyLost":
                offences.append(error)
        elif not raiser(error).endswith("/libweida.so"):
            offences.append(error)
    for error in offences:
        print(describe(error), file=sys.stderr)
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

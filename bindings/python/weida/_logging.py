"""The library's log lines, routed to the ``logging`` module.

The C library logs through one process-wide callback
(weida_set_log_callback). It is installed when a Runtime is made, with the
lowest level the ``"weida"`` logger is enabled for, so lines below it never
leave the library; each line is checked with ``isEnabledFor`` again before
it is built. Levels: the library's DEBUG, INFO, WARN and ERROR become
``logging.DEBUG`` … ``logging.ERROR``. Each record's message is the
library's message (without its "weida: " lead, which the logger's name
says) and its attributes as ``key=value`` text; the attributes are also on
the record as the dict ``record.weida``.

A handler that raises never unwinds into the library: the first exception
is written to ``sys.stderr`` with its traceback, once, and the callback is
dropped (the library logs nothing more) until ``refresh_logging()``.
"""

from __future__ import annotations

import atexit
import logging
import shlex
import sys
import threading
import traceback
from typing import Optional

from ._ffi import LOG_DEBUG, LOG_ERROR, LOG_FN, LOG_INFO, LOG_WARN, lib

#: The logger every library line goes to. A library adds no handler but
#: NullHandler: without one, logging's last resort would print the
#: library's warnings on stderr of programs that never configured logging.
logger = logging.getLogger("weida")
logger.addHandler(logging.NullHandler())

# A min_level no line reaches: the logger is enabled for nothing we send.
_NOTHING = LOG_ERROR + 1000

_lock = threading.Lock()
_installed = False
_dropped = False


def _python_level(level: int) -> int:
    """The logging level of a library level (slog's numbers)."""
    if level < LOG_INFO:
        return logging.DEBUG
    if level < LOG_WARN:
        return logging.INFO
    if level < LOG_ERROR:
        return logging.WARNING
    return logging.ERROR


def _library_level(enabled_for: int) -> int:
    """The lowest library level whose lines the logger would keep."""
    for level in (LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR):
        if _python_level(level) >= enabled_for:
            return level
    return _NOTHING


def _attrs(text: str) -> dict:
    """'k=v k2="a b"' as a dict (quoted values unquoted)."""
    out = {}
    try:
        parts = shlex.split(text)
    except ValueError:
        parts = text.split()
    for part in parts:
        key, _, value = part.partition("=")
        out[key] = value
    return out


def _on_line(_user: Optional[int], level: int, message: Optional[bytes], attrs: Optional[bytes]) -> None:
    try:
        py_level = _python_level(level)
        if not logger.isEnabledFor(py_level):
            return
        msg = (message or b"").decode("utf-8", "replace").removeprefix("weida: ")  # the logger's name says it
        text = (attrs or b"").decode("utf-8", "replace")
        logger.log(py_level, "%s %s", msg, text, extra={"weida": _attrs(text)})
    except BaseException:  # noqa: BLE001 - nothing may unwind into the library
        _drop(sys.exc_info())


# Kept for the life of the process: the library holds its address.
_CALLBACK = LOG_FN(_on_line)


def _drop(exc_info) -> None:
    """Removes the callback (from inside it) and reports why, once."""
    global _dropped, _installed
    with _lock:
        first = not _dropped
        _dropped, _installed = True, False
    lib.weida_set_log_callback(_NOTHING, LOG_FN(), None)
    if first:
        try:
            sys.stderr.write("weida: a handler of the 'weida' logger raised; the library's log callback is "
                             "dropped (weida.refresh_logging() installs it again):\n")
            traceback.print_exception(*exc_info, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - stderr itself failed: nothing more to do
            pass


def install() -> None:
    """Installs the callback at the logger's level (called when a Runtime
    is made); does nothing once a handler raised, until refresh_logging()."""
    global _installed
    with _lock:  # never held across the call: it waits out lines in flight, which may take it
        if _dropped:
            return
        _installed = True
    lib.weida_set_log_callback(_library_level(logger.getEffectiveLevel()), _CALLBACK, None)


def refresh_logging() -> None:
    """Reads the ``"weida"`` logger's level again and installs the library's
    log callback at it, also after a handler raised and it was dropped.
    Call it after changing that logger's level once runtimes exist."""
    global _dropped
    with _lock:
        _dropped = False
    install()


@atexit.register
def _uninstall() -> None:
    # Before the interpreter finalizes: a connection closing at exit must
    # not call into Python that is going away. The call releases the GIL,
    # so a line in flight on another thread can finish first.
    with _lock:
        if not _installed:
            return
    lib.weida_set_log_callback(_NOTHING, LOG_FN(), None)

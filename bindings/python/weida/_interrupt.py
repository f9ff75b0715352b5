"""Blocking calls that a signal interrupts: ``lib`` for weida.sync.

A blocking C call cannot be interrupted: Python runs a signal handler only
between bytecodes, so Ctrl-C would wait until the call returned (for an
``accept`` with no caller, never). On the main thread, the one Python
delivers signals to, each waiting call is made in its ``_async`` form
instead, queued on a completion queue of its own, and the thread waits in
``select`` on the queue's descriptor, in 20 ms slices (a signal landing just
before ``select`` is then handled within one). A signal wakes ``select``; when its
handler raises (KeyboardInterrupt), the operation is cancelled through
``weida_op_cancel`` (its streams reset, so the peer learns), its outcome is
awaited so nothing it produced leaks, and the exception goes on. Other
threads, which no signal reaches, call the blocking form directly.

The object mimics the C library: ``lib.weida_replier_accept(h, n, byref(out))``
has the blocking form's arguments and return code, with the outputs filled
in; a failure is raised as ``check`` would raise it (WEIDA_END is returned).
"""

from __future__ import annotations

import threading
from select import select as _select
from ctypes import byref, c_uint64
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _cq
from ._boundary import close
from ._errors import error_for
from ._ffi import END, OK, WAITING, lib as _lib

# A pointer-to-uint64 output of a waiting call is a handle, except the two
# counts drain returns: a handle left over from a cancelled call is closed.
_COUNTS = {"weida_runtime_drain"}
_U64_OUT = WAITING["weida_runtime_drain"][0]

Outcome = Tuple[int, int, int, str]  # code, a, b, the failure's sentence

#: The longest a signal can wait to be handled during a blocking call.
_SLICE = 0.02


class _Queue:
    """The main thread's completion queue: one operation per wait, waits nested
    only when a signal handler makes a blocking call."""

    def __init__(self) -> None:
        cq = _cq.CompletionQueue()
        self.handle, self.fd = cq.handle, cq.fd
        self.drainer = cq.drainer()
        # Outcomes drained while waiting for another op: a signal handler
        # that itself made a blocking call nests a wait inside a wait.
        self.early: Dict[int, Outcome] = {}

    def wait(self, op: int) -> Outcome:
        """The outcome of op; a signal handler that raises interrupts it."""
        while True:
            if op in self.early:
                return self.early.pop(op)
            for got, code, a, b, cause in self.drainer.drain():
                self.early[got] = (code, a, b, cause)
            if op in self.early:
                return self.early.pop(op)
            # In slices: a signal that lands just before select() would
            # otherwise leave its handler pending until the call returns.
            _select([self.fd], [], [], _SLICE)

    def settle(self, op: int) -> Outcome:
        """The outcome of op, which was cancelled: waited for whatever
        signals come meanwhile (the cancel answers promptly)."""
        while True:
            try:
                return self.wait(op)
            except BaseException:  # a second Ctrl-C while cancelling: finish cancelling first
                continue


_queue: Optional[_Queue] = None


def _main_queue() -> _Queue:
    global _queue
    if _queue is None:
        _queue = _Queue()
    return _queue


def _interruptible(name: str) -> Callable[..., int]:
    blocking = getattr(_lib, name)
    started = getattr(_lib, name + "_async")
    outputs = WAITING[name]
    n = len(outputs)
    handles = [t is _U64_OUT and name not in _COUNTS for t in outputs]
    main = threading.main_thread()

    def call(*args: Any) -> int:
        if threading.current_thread() is not main:
            return blocking(*args)
        q = _main_queue()
        inputs, outs = args[:len(args) - n], args[len(args) - n:]
        op = c_uint64()
        rc = started(*inputs, _cq.POST, q.handle, byref(op))
        if rc != OK:
            return rc
        try:
            code, a, b, cause = q.wait(op.value)
        except BaseException:
            _lib.weida_op_cancel(op.value)
            code, a, b, _ = q.settle(op.value)
            if code == OK:  # it finished before the cancel: drop what it made
                for value, is_handle in zip((a, b), handles):
                    if is_handle:
                        close(value)
            raise
        if code == OK:
            for out, value in zip(outs, (a, b)):
                out._obj.value = value  # a byref() of the caller's ctypes value
        elif code != END:
            # Raised here with the sentence drained with it: the thread's
            # last error may be a nested call's by now.
            raise error_for(code, cause)
        return code

    call.__name__ = name
    return call


class _Lib:
    """The C library as weida.sync calls it: waiting calls interruptible."""

    def __getattr__(self, name: str) -> Any:
        fn = _interruptible(name) if name in WAITING else getattr(_lib, name)
        setattr(self, name, fn)
        return fn


lib: Any = _Lib()
__all__: List[str] = ["lib"]

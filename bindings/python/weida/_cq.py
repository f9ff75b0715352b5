"""The process's completion queue (weida_cq_t): outcomes of ``_async``
calls queued by the library instead of called back on its threads.

A callback on a library thread costs Python dearly: the thread is foreign
to the interpreter, so every call enters it afresh (PyGILState_Ensure
makes and frees a thread state) and then fights the loop thread for the
GIL. With the queue no Python runs on a library thread at all: the library
appends the outcome and makes the queue's descriptor readable, the event
loop (which watches it with ``add_reader``) wakes once and takes every
waiting outcome with one C call.
"""

from __future__ import annotations

import ctypes
import struct
from ctypes import byref, c_int, c_size_t, c_uint64
from typing import List, Tuple

from ._boundary import check, last_error, out_count, out_handle
from ._ffi import DONE_FN, OK, lib

#: Outcomes taken per weida_cq_drain call.
BATCH = 64
# weida_completion_t: op, code, reserved, a, b (native order, 32 bytes).
_COMPLETION = struct.Struct("=QiIQQ")

#: The callback that means "queue it": weida_cq_post itself.
POST = DONE_FN(ctypes.cast(lib.weida_cq_post, ctypes.c_void_p).value)

Outcome = Tuple[int, int, int, int, str]  # op, code, a, b, the failure's sentence


class CompletionQueue:
    """One weida_cq_t, kept for the life of the process."""

    __slots__ = ("handle", "fd")

    def __init__(self) -> None:
        self.handle = out_handle(lib.weida_cq_new)  # the user pointer of a queued _async call
        self.fd = out_count(lib.weida_cq_fd, self.handle, kind=c_int)

    def drainer(self) -> "Drainer":
        """A drainer for one thread (each loop has its own)."""
        return Drainer(self.handle)


class Drainer:
    """Takes outcomes from a queue into its own buffer. Per thread: the C
    call releases the GIL, so two loops sharing one buffer would overwrite
    each other's batches."""

    __slots__ = ("_handle", "_words", "_count", "_count_ref")

    def __init__(self, handle: int) -> None:
        self._handle = handle
        self._words = (c_uint64 * (4 * BATCH))()
        self._count = c_size_t()
        self._count_ref = byref(self._count)

    def drain(self) -> List[Outcome]:
        """Every outcome waiting now, oldest first; never waits."""
        taken: List[Outcome] = []
        words, unpack = self._words, _COMPLETION.unpack_from
        while True:
            check(lib.weida_cq_drain(self._handle, words, BATCH, self._count_ref))
            n = self._count.value
            for i in range(n):
                op, code, _, a, b = unpack(words, 32 * i)
                taken.append((op, code, a, b, ""))
            if n == 0:
                return taken
            if taken[-1][1] != OK:  # a failure ends a batch and leaves its sentence here
                op, code, a, b, _ = taken[-1]
                taken[-1] = (op, code, a, b, last_error())
            elif n < BATCH:  # the queue is empty
                return taken

"""The completion bridge: a C ``_async`` call awaited as an asyncio future.

One ``DONE_FN`` callback object lives for the whole process, so ctypes can
never free it while the library still holds it. Each pending operation is a
small integer (the C ``user`` argument) keyed into ``_pending``, which holds
the future, the converter and any buffer the library is still writing into
until the callback fires: nothing the library may touch is left to the
garbage collector.

The callback runs on a library thread. It reads the failure's sentence there
(``weida_last_error`` is per thread) and posts the outcome to the loop's
``_Inbox``; it never runs user code and never calls a blocking function.
The inbox wakes its loop with one ``call_soon_threadsafe`` per batch, not
per completion: while a wake-up is pending, later completions only queue,
so a busy loop pays one self-pipe write for many operations. A closed loop
is a silent no-op, except that result handles nobody will receive are
closed.

Cancelling the awaiting task calls ``weida_op_cancel``: the library aborts
the operation and resets its streams, so the peer learns. Results that
arrive anyway after a cancel are closed, not leaked.

That callback is the fallback route. The default one takes no callback on
a library thread at all: the library queues the outcome in the process's
completion queue (``_cq``) under the op handle, and each loop that started
an operation watches the queue's descriptor with ``add_reader``. Whichever
loop wakes drains every waiting outcome with one C call and settles its
own at once; one that belongs to another loop goes through that loop's
inbox as above (closed there if that loop is gone), so a loop that died
with operations in flight leaks nothing while another loop runs.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import os
import threading
import weakref
from ctypes import byref, c_uint64
from typing import Any, Callable, Optional

from . import _cq
from ._boundary import close, last_error
from ._errors import error_for
from ._ffi import DONE_FN, END, OK, lib

# convert(a, b) -> the coroutine's value; runs on the loop thread.
Convert = Callable[[int, int], Any]


class _Pending:
    """One operation in flight: everything the callback needs."""

    __slots__ = ("inbox", "future", "convert", "owned", "keep", "end", "ended", "settled")

    def __init__(self, inbox: "_Inbox", future: asyncio.Future, convert: Convert,
                 owned: int, keep: object, end: object) -> None:
        self.inbox = inbox
        self.future = future
        self.convert = convert
        self.owned = owned  # how many of (a, b) are handles this side must close if unused
        self.keep = keep  # a buffer the library writes into until the callback
        self.end = end  # the value WEIDA_END stands for, or FAIL when it is unexpected
        self.ended: Optional[asyncio.Future] = None  # set once a canceled operation's outcome is in
        self.settled = False  # the outcome is in (a canceled task may learn it only later)

    def settle(self, code: int, a: int, b: int, cause: str) -> None:
        """Completes the future on its loop's thread."""
        self.settled = True
        fut = self.future
        if fut.done():  # cancelled while the library finished
            self.discard(code, a, b)
            if self.ended is not None and not self.ended.done():
                self.ended.set_result(None)
            return
        if code == END and self.end is not FAIL:
            fut.set_result(self.end)
        elif code == OK:
            try:
                value = self.convert(a, b)
            except Exception as e:  # e.g. a closed handle: the caller's error
                fut.set_exception(e)
            else:
                fut.set_result(value)
        else:
            fut.set_exception(error_for(code, cause))

    def discard(self, code: int, a: int, b: int) -> None:
        """Closes result handles no coroutine will receive."""
        if code == OK:
            for h in (a, b)[: self.owned]:
                close(h)


class _Inbox:
    """Completions waiting for one loop's thread, drained in batches."""

    __slots__ = ("loop", "queue", "armed", "watching", "drainer", "__weakref__")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # Weak: _inboxes is keyed weakly by the loop, which this must not pin.
        self.loop = weakref.ref(loop)
        self.queue: collections.deque = collections.deque()
        self.armed = False  # a drain is scheduled and has not started yet
        self.watching: Optional[bool] = None  # the loop watches the completion queue; None: not asked yet
        self.drainer: "Optional[_cq.Drainer]" = None

    def watches(self, queue: "_cq.CompletionQueue") -> bool:
        """Loop thread: whether the loop watches the queue's descriptor,
        starting to the first time it is asked. A loop without add_reader (Windows'
        proactor) keeps the callback route."""
        if self.watching is None:
            loop = self.loop()
            try:
                self.drainer = queue.drainer()
                # The reader holds the inbox weakly: it must not pin the loop.
                loop.add_reader(queue.fd, _drain_queue, weakref.ref(self))  # type: ignore[union-attr]
                self.watching = True
            except (NotImplementedError, AttributeError):
                self.watching = False
        return self.watching

    def post(self, p: _Pending, code: int, a: int, b: int, cause: str) -> None:
        """Library thread: queue an outcome, waking the loop unless a drain is due."""
        self.queue.append((p, code, a, b, cause))
        if self.armed:
            return
        self.armed = True
        loop = self.loop()
        try:
            if loop is None:
                raise RuntimeError("the event loop is gone")
            loop.call_soon_threadsafe(self.drain)
        except RuntimeError:  # the loop is closed: nobody is waiting
            while self.queue:
                p, code, a, b, _ = self.queue.popleft()
                p.discard(code, a, b)
            self.armed = False  # so a later outcome is discarded the same way

    def drain(self) -> None:
        """Loop thread: settle everything queued. Disarming first means an
        outcome posted meanwhile is either seen here or schedules a drain."""
        self.armed = False
        queue = self.queue
        while queue:
            p, code, a, b, cause = queue.popleft()
            p.settle(code, a, b, cause)


#: Marks an operation for which WEIDA_END is not an expected outcome.
FAIL = object()

_pending: dict = {}
_ids = itertools.count(1)
_inboxes: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Inbox]" = weakref.WeakKeyDictionary()


def _inbox(loop: asyncio.AbstractEventLoop) -> _Inbox:
    inbox = _inboxes.get(loop)
    if inbox is None:
        inbox = _inboxes[loop] = _Inbox(loop)
    return inbox


def _on_done(user: Optional[int], code: int, a: int, b: int) -> None:
    # A library thread, holding the GIL for this call only. Any exception
    # here would be printed and swallowed by ctypes, so none may escape.
    try:
        p = _pending.pop(user, None)
        if p is None:
            return
        cause = last_error() if code not in (OK, END) else ""
        p.inbox.post(p, code, a, b, cause)
    except BaseException:  # pragma: no cover - interpreter shutting down
        pass


#: The one callback object handed to every _async call; never collected.
CALLBACK = DONE_FN(_on_done)

# The completion-queue route. _queued maps an op handle to its operation;
# _early holds an outcome a loop drained before the thread that started
# the operation (another loop's) had recorded it. _lock makes "record, then
# look for an early outcome" and "look for the record, else leave the
# outcome early" exclusive, so every outcome meets its record exactly once.
_queued: dict = {}
_early: dict = {}
_lock = threading.Lock()
_queue: "Optional[_cq.CompletionQueue]" = None
#: "cq", the default, or "callback": WEIDA_PYTHON_COMPLETIONS=callback, or
#: a library that refuses to make a queue.
_route = "callback"


def _expect(op: int, p: _Pending) -> None:
    """Records a queued operation, settling it if its outcome came first."""
    with _lock:
        early = _early.pop(op, None)
        if early is None:
            _queued[op] = p
            return
    p.inbox.post(p, *early)


def _drain_queue(inbox_ref: "weakref.ref[_Inbox]") -> None:
    """Loop thread, the queue's descriptor readable: settles this loop's
    outcomes now and hands the others to their loops."""
    inbox = inbox_ref()
    if inbox is None:  # the loop is being collected
        return
    for op, code, a, b, cause in inbox.drainer.drain():  # type: ignore[union-attr]
        p = _queued.pop(op, None)
        if p is None:
            with _lock:
                p = _queued.pop(op, None)
                if p is None:
                    if op:  # 0: a direct weida_cq_post, which no operation awaits
                        _early[op] = (code, a, b, cause)
                    continue
        if p.inbox is inbox:
            p.settle(code, a, b, cause)
        else:
            p.inbox.post(p, code, a, b, cause)


def completion_route() -> str:
    """How _async outcomes reach their loop: "cq" or "callback"."""
    return _route


def set_completion_route(route: str) -> bool:
    """Chooses the route for operations started from now on (a benchmark
    compares them); False when the completion queue is unavailable."""
    global _route, _queue
    if route not in ("cq", "callback"):
        raise ValueError(f"route must be 'cq' or 'callback', not {route!r}")
    if route == "cq" and _queue is None:
        try:
            _queue = _cq.CompletionQueue()
        except Exception:  # the library refused: stay on callbacks
            return False
    _route = route
    return True


if os.environ.get("WEIDA_PYTHON_COMPLETIONS") != "callback":
    set_completion_route("cq")


async def call(start: Callable[..., int], args: tuple, convert: Convert, owned: int = 0,
               keep: object = None, end: object = FAIL) -> Any:
    """Starts ``start(*args, cb, user, &op)`` and awaits its outcome, which
    comes through the completion queue (cb = weida_cq_post, user = the
    queue) or, on the fallback route, the callback (cb = CALLBACK).

    Nothing happens until the coroutine is first awaited. ``owned`` says how
    many of the callback's (a, b) are result handles, closed here if the
    awaiting task was cancelled before it could take them; ``end`` is the
    value of an operation that ends with WEIDA_END (end of stream).
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    inbox = _inbox(loop)
    pending = _Pending(inbox, future, convert, owned, keep, end)
    op = c_uint64()
    queue = _queue if _route == "cq" else None
    queued = queue is not None and inbox.watches(queue)
    if queued:
        rc = start(*args, _cq.POST, queue.handle, byref(op))  # type: ignore[union-attr]
        if rc != OK:  # nothing started: nothing will be queued
            raise error_for(rc, last_error())
        _expect(op.value, pending)
    else:
        user = next(_ids)
        _pending[user] = pending
        rc = start(*args, CALLBACK, user, byref(op))
        if rc != OK:  # nothing started: the callback will never run
            del _pending[user]
            raise error_for(rc, last_error())
    try:
        return await future
    except asyncio.CancelledError:
        lib.weida_op_cancel(op.value)  # stale if it finished first: harmless
        # The outcome may already have been drained between the cancel
        # and this task resuming: then there is nothing left to wait for.
        if queued and future.cancelled() and not pending.settled:
            # A queued outcome reaches no loop that has stopped watching,
            # so the task ends only once this loop has taken it (and
            # closed its results): a loop closing with canceled operations,
            # as asyncio.run does, leaves none behind. A second cancel
            # stops the wait; the outcome is then closed by whichever loop
            # drains it.
            pending.ended = loop.create_future()
            with contextlib.suppress(asyncio.CancelledError):
                await pending.ended
        raise


def pending_count() -> int:
    """Operations whose callback has not fired yet (tests use it)."""
    return len(_pending) + len(_queued)


def unit(a: int, b: int) -> None:
    """Converter for calls with no result."""
    return None


def first(a: int, b: int) -> int:
    """Converter for calls whose result is the integer a."""
    return a


def pair(a: int, b: int) -> tuple:
    """Converter for calls whose result is (a, b)."""
    return (a, b)

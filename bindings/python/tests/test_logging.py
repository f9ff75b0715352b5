"""The library's log lines reach the logging module (logger "weida"); a
handler that raises is reported once and dropped, and the process goes on."""

import io
import logging
import subprocess
import sys
import threading

import weida
from support import BoundedCase, by_address, served, until

log = logging.getLogger("weida")


class Collect(logging.Handler):
    """Keeps every record; raises on the first when told to."""

    def __init__(self, raise_first=False):
        super().__init__(logging.DEBUG)
        self.records = []
        self.raise_first = raise_first
        self.mu = threading.Lock()

    def emit(self, record):
        with self.mu:
            self.records.append(record)
            if self.raise_first and len(self.records) == 1:
                raise RuntimeError("this handler is broken")

    def find(self, message, **attrs):
        with self.mu:
            for r in self.records:
                if message in r.getMessage() and all(r.weida.get(k) == v for k, v in attrs.items()):
                    return r
        return None


class Logging(BoundedCase):
    def setUp(self):
        super().setUp()
        self.handler = None

    def use(self, level, handler):
        self.handler = handler
        log.addHandler(handler)
        log.setLevel(level)
        weida.refresh_logging()

    def tearDown(self):
        if self.handler is not None:
            log.removeHandler(self.handler)
        log.setLevel(logging.NOTSET)
        weida.refresh_logging()
        super().tearDown()

    async def wait_for(self, message, **attrs):
        await until(lambda: self.handler.find(message, **attrs) is not None,
                    f"a {message!r} record with {attrs}")
        return self.handler.find(message, **attrs)

    async def test_connections_opened_and_closed_reach_the_weida_logger(self):
        self.use(logging.INFO, Collect())
        server, binding, client = await served()
        puller = binding.puller("/logs")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/logs"))
        for i in range(20):
            await pusher.send(b"m%d" % i)
            await puller.recv(64)
        dialled = await self.wait_for("connection opened", side="dialled")
        self.assertEqual(dialled.levelno, logging.INFO)
        self.assertEqual(dialled.name, "weida")
        self.assertEqual(dialled.weida["peer"], binding.fingerprint())
        self.assertEqual(dialled.weida["path"], "/logs")
        accepted = await self.wait_for("connection opened", side="accepted", peer="anonymous")
        pusher.close()
        closed = await self.wait_for("connection closed", side="accepted", remote=accepted.weida["remote"])
        self.assertIn("the peer closed", closed.weida["reason"])
        # The logger is the process's: a runtime an earlier test left
        # closing may add its own lifecycle lines here, so only lines that
        # are not about a connection opening or closing are counted.
        with self.handler.mu:
            own = [r.getMessage() for r in self.handler.records
                   if "connection opened" not in r.getMessage() and "connection closed" not in r.getMessage()]
        self.assertEqual(own, [], "20 pushes logged nothing of their own at INFO")

    async def test_a_failed_negotiation_is_a_warning_naming_the_dimension(self):
        self.use(logging.WARNING, Collect())
        server, binding, _ = await served()
        binding.puller("/logs")
        pusher = weida.Runtime(ordering="reassemble").pusher(by_address())
        with self.assertRaises(weida.Negotiation):
            await pusher.connect(binding.url("/logs"))
        for side in ("dialled", "accepted"):
            r = await self.wait_for("negotiation failed", side=side, dimension="ordering")
            self.assertEqual(r.levelno, logging.WARNING)
        self.assertTrue(all(r.levelno >= logging.WARNING for r in self.handler.records))

    async def test_a_raising_handler_is_reported_once_and_dropped(self):
        stderr, sys.stderr = sys.stderr, io.StringIO()
        try:
            self.use(logging.INFO, Collect(raise_first=True))
            server, binding, client = await served()
            puller = binding.puller("/logs")
            pusher = client.pusher(by_address())
            await pusher.connect(binding.url("/logs"))
            await until(lambda: "this handler is broken" in sys.stderr.getvalue(), "the report on stderr")
            # Dropped: a connection made now logs nothing (its opened line
            # is written before connect returns), and the process goes on.
            later = client.pusher(by_address())
            await later.connect(binding.url("/later"))
            binding.puller("/later")
            await pusher.send(b"still working")
            self.assertEqual(await puller.recv(64), (b"still working", unittest_any()))
            report = sys.stderr.getvalue()
        finally:
            sys.stderr = stderr
        self.assertEqual(report.count("weida: a handler of the 'weida' logger raised"), 1, report)
        self.assertIsNone(self.handler.find("connection opened", path="/later"))

    def test_a_program_that_never_configured_logging_prints_nothing(self):
        # logging's last resort prints warnings of a logger with no handler.
        program = (
            "import asyncio, weida\n"
            "async def main():\n"
            "    server = weida.Runtime()\n"
            "    binding = await server.bind('127.0.0.1:0', weida.Identity.generate())\n"
            "    binding.puller('/p')\n"
            "    pusher = weida.Runtime(ordering='reassemble').pusher(weida.Trust.by_address())\n"
            "    try:\n"
            "        await pusher.connect(binding.url('/p'))\n"
            "    except weida.Negotiation:\n"
            "        print('refused')\n"
            "asyncio.run(main())\n"
        )
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=10)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "refused\n", ""))


class unittest_any:
    """Equal to anything: the meta of a received message."""

    def __eq__(self, other):
        return True

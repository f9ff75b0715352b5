"""Local transports and connection statistics on both surfaces: every
pattern over the in-process bus, Push/Pull over a unix socket (the kernel
proves the peer's uid), and ``connection_stats()`` — QUIC's figures over
QUIC, ``None`` for a local transport's."""

import asyncio
import itertools
import os
import re
import tempfile

import weida
import weida.sync
from support import MIB, BoundedCase, background, by_address, header_path, served, until

_buses = itertools.count()


def bus_name() -> str:
    """A bus name no other test in this process has bound."""
    return f"py-local-{os.getpid()}-{next(_buses)}"


async def inproc():
    """(binding on a fresh bus, client runtime)."""
    return weida.Runtime().bind_inproc(bus_name()), weida.Runtime()


class InprocBinding(BoundedCase):
    def test_binding_names_its_bus_and_proves_no_key(self):
        name = bus_name()
        binding = weida.Runtime().bind_inproc(name)
        self.assertEqual(binding.local_addr(), name)
        self.assertIsNone(binding.fingerprint())
        self.assertEqual(binding.url("/echo"), f"weida+inproc://{name}/echo")

    def test_bad_and_taken_bus_names(self):
        runtime = weida.Runtime()
        name = bus_name()
        keep = runtime.bind_inproc(name)
        cases = [(name, weida.AddressInUse), ("a/b", weida.InvalidAddress), ("", weida.InvalidAddress),
                 ("x" * 257, weida.InvalidAddress)]
        for bus, error in cases:
            with self.subTest(bus=bus[:20]), self.assertRaises(error):
                runtime.bind_inproc(bus)
        with self.assertRaises(TypeError):
            runtime.bind_inproc(b"bytes")
        keep.close()
        runtime.bind_inproc(name)  # unbound with its binding: free again

    def test_quic_binding_keeps_its_fingerprint(self):
        identity = weida.Identity.generate()
        binding = weida.sync.Runtime().bind("127.0.0.1:0", identity)
        self.assertEqual(binding.fingerprint(), identity.fingerprint())


class InprocPatterns(BoundedCase):
    async def test_reqrep(self):
        binding, client = await inproc()
        replier = binding.replier("/upper")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/upper"))

        async def answer():
            request = await replier.accept(MIB)
            self.assertEqual((request.meta.endpoint, request.meta.peer), ("/upper", None))
            await request.reply(request.payload.upper())

        answering = asyncio.ensure_future(answer())
        self.assertEqual(await requester.request(b"quiet", MIB), b"QUIET")
        await answering

    async def test_pushpull(self):
        binding, client = await inproc()
        puller = binding.puller("/jobs")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/jobs"))
        await pusher.send(b"job")
        payload, meta = await puller.recv(MIB)
        self.assertEqual((payload, meta.endpoint, meta.peer), (b"job", "/jobs", None))

    async def test_pubsub(self):
        binding, client = await inproc()
        publisher = binding.publisher("/px")
        subscriber = client.subscriber(by_address())
        await subscriber.connect(binding.url("/px"))
        await subscriber.subscribe("px.#")
        await until(lambda: publisher.filter_count() == 1, "the subscription")
        self.assertEqual(publisher.publish("px.eur", b"1.08"), 1)
        payload, meta = await subscriber.recv(MIB)
        self.assertEqual((payload, meta.topic), (b"1.08", "px.eur"))

    async def test_pair(self):
        binding, client = await inproc()
        bound = binding.pair("/pair")
        dialler = client.pair(by_address())
        await dialler.connect(binding.url("/pair"))
        await dialler.send(b"ping")
        self.assertEqual((await bound.recv(MIB))[0], b"ping")
        await bound.send(b"pong")
        self.assertEqual((await dialler.recv(MIB))[0], b"pong")

    async def test_survey(self):
        binding, client = await inproc()
        respondent = binding.respondent("/vote")
        surveyor = client.surveyor(by_address())
        await surveyor.connect(binding.url("/vote"))

        async def answer():
            question = await respondent.accept(MIB)
            await question.reply(b"yes")

        answering = asyncio.ensure_future(answer())
        survey = await surveyor.survey(b"ready?", 5.0, MIB)
        await answering
        self.assertEqual((survey.replies, survey.asked, survey.silent()), ([b"yes"], 1, 0))

    async def test_bus(self):
        (ba, _), (bb, _) = await inproc(), await inproc()
        a, b = ba.bus("/bus", by_address()), bb.bus("/bus", by_address())
        await a.connect(bb.url("/bus"))
        self.assertEqual(await a.send(b"from a"), 1)
        self.assertEqual((await b.recv(MIB))[0], b"from a")

    async def test_radio_dish(self):
        binding, client = await inproc()
        radio = binding.radio("/cam")
        dish = client.dish(by_address())
        await dish.connect(binding.url("/cam"))
        await dish.join("cam.#")
        await until(lambda: radio.dish_count() == 1, "the radio to apply the join")
        segment = radio.segment("cam.front")
        segment.write(b"frame")
        self.assertEqual(segment.finish(), 1)
        kind, payload, meta = await dish.recv(MIB)
        self.assertEqual((kind, payload, meta.topic), ("segment", b"frame", "cam.front"))


class Unix(BoundedCase):
    async def test_push_over_a_unix_socket_names_the_uid(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "s.sock")
            binding = weida.Runtime().bind_unix(path)
            self.assertIsNone(binding.fingerprint())
            self.assertEqual(binding.local_addr(), path)
            url = binding.url("/jobs")
            self.assertEqual(url, "weida+unix://" + path.replace("/", "%2F") + "/jobs")
            puller = binding.puller("/jobs")
            pusher = weida.Runtime().pusher(by_address())
            await pusher.connect(url)
            await pusher.send(b"over unix")
            payload, meta = await puller.recv(MIB)
            self.assertEqual(payload, b"over unix")
            self.assertRegex(meta.peer, rf"^uid={os.getuid()} gid={os.getgid()}( pid=\d+)?$")
            (stats,) = pusher.connection_stats()
            self.assertEqual((stats.url, stats.live, stats.transport), (url, True, None))

    def test_a_live_socket_is_address_in_use(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "s.sock")
            runtime = weida.sync.Runtime()
            keep = runtime.bind_unix(path)
            with self.assertRaises(weida.AddressInUse):
                runtime.bind_unix(path)
            keep.close()


class Stats(BoundedCase):
    async def test_inproc_stats_have_no_transport_figures(self):
        binding, client = await inproc()
        puller = binding.puller("/jobs")
        pusher = client.pusher(by_address())
        self.assertEqual(pusher.connection_stats(), [])
        await pusher.connect(binding.url("/jobs"))
        (stats,) = pusher.connection_stats()
        self.assertIsInstance(stats, weida.ConnectionStats)
        self.assertEqual((stats.url, stats.live, stats.redials), (binding.url("/jobs"), True, 0))
        self.assertIsNone(stats.transport)
        self.assertIsNone(stats.remote)
        self.assertGreaterEqual(stats.age, 0.0)
        self.assertEqual(puller.path(), "/jobs")

    async def test_quic_stats_carry_the_measurement(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        url = binding.url("/echo")
        await requester.connect(url)

        async def answer():
            request = await replier.accept(MIB)
            await request.reply(request.payload)

        answering = asyncio.ensure_future(answer())
        self.assertEqual(await requester.request(b"x" * 5000, MIB), b"x" * 5000)
        await answering
        (stats,) = requester.connection_stats()
        self.assertEqual((stats.url, stats.live, stats.remote), (url, True, None))
        transport = stats.transport
        self.assertIsInstance(transport, weida.TransportStats)
        self.assertIsInstance(transport.path, weida.PathStats)
        self.assertIsInstance(transport.tx, weida.UdpCounts)
        self.assertGreater(transport.path.rtt, 0.0)
        self.assertLess(transport.path.rtt, 10.0)
        self.assertIsNone(transport.path.current_mtu)
        self.assertGreater(transport.path.congestion_window, 0)
        self.assertGreater(transport.tx.bytes, 5000)  # the request went out
        self.assertGreater(transport.rx.bytes, 5000)  # and its echo came back
        self.assertGreater(transport.tx.packets, 0)

    async def test_urls_are_reported_in_connect_order(self):
        _, quic, client = await served()
        local, _ = await inproc()
        pullers = [quic.puller("/jobs"), local.puller("/jobs")]
        pusher = client.pusher(by_address())
        await pusher.connect(local.url("/jobs"))
        await pusher.connect(quic.url("/jobs"))
        stats = pusher.connection_stats()
        self.assertEqual([s.url for s in stats], [local.url("/jobs"), quic.url("/jobs")])
        self.assertEqual([s.transport is None for s in stats], [True, False])
        self.assertEqual([p.path() for p in pullers], ["/jobs", "/jobs"])

    async def test_every_dialling_endpoint_reports(self):
        binding, client = await inproc()
        registered = [binding.replier("/r"), binding.publisher("/p"), binding.pair("/pair"),
                      binding.respondent("/s"), binding.radio("/cam")]
        self.addCleanup(lambda: [r.close() for r in registered])  # held open until the test ends
        member = binding.bus("/bus", by_address())
        other, _ = await inproc()
        endpoints = {
            "/r": client.requester(by_address()), "/p": client.subscriber(by_address()),
            "/pair": client.pair(by_address()), "/s": client.surveyor(by_address()),
            "/cam": client.dish(by_address()), "/bus": other.bus("/bus", by_address()),
        }
        for path, endpoint in endpoints.items():
            with self.subTest(path=path):
                await endpoint.connect(binding.url(path))
                (stats,) = endpoint.connection_stats()
                self.assertEqual((stats.url, stats.live, stats.transport), (binding.url(path), True, None))
        self.assertEqual(member.connection_stats(), [])  # bound: it dialled nothing yet
        self.assertEqual(binding.pair("/pair2").connection_stats(), [])  # a bound pair dials nothing


class StatsValues(BoundedCase):
    def test_values_are_read_only_and_compare_by_field(self):
        a = weida.UdpCounts(packets=1, bytes=2)
        self.assertEqual(a, weida.UdpCounts(packets=1, bytes=2))
        self.assertNotEqual(a, weida.UdpCounts(packets=1, bytes=3))
        self.assertEqual(repr(a), "UdpCounts(packets=1, bytes=2)")
        with self.assertRaises(AttributeError):
            a.packets = 5
        with self.assertRaises(TypeError):
            weida.UdpCounts(datagrams=1)

    def test_c_struct_mirrors_the_header(self):
        header = header_path().read_text()
        body = re.search(r"typedef struct weida_connection_stats \{(.*?)\} weida_connection_stats_t;",
                         header, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        fields = re.findall(r"(\w+)\s*;", body)
        self.assertEqual(fields, [name for name, _ in weida._ffi.ConnectionStats._fields_])


def _answer_once(replier):
    request = replier.accept(MIB)
    request.reply(request.payload[::-1])


class Sync(BoundedCase):
    def test_reqrep_over_inproc_and_stats(self):
        binding = weida.sync.Runtime().bind_inproc(bus_name())
        self.assertIsInstance(binding, weida.sync.Binding)
        self.assertIsNone(binding.fingerprint())
        replier = binding.replier("/rev")
        background(_answer_once, replier)
        requester = weida.sync.Runtime().requester(by_address())
        requester.connect(binding.url("/rev"))
        self.assertEqual(requester.request(b"abc", MIB), b"cba")
        (stats,) = requester.connection_stats()
        self.assertEqual((stats.url, stats.live, stats.transport), (binding.url("/rev"), True, None))

    def test_push_over_unix(self):
        with tempfile.TemporaryDirectory() as directory:
            binding = weida.sync.Runtime().bind_unix(os.path.join(directory, "s.sock"))
            puller = binding.puller("/jobs")
            pusher = weida.sync.Runtime().pusher(by_address())
            pusher.connect(binding.url("/jobs"))
            pusher.send(b"job")
            payload, meta = puller.recv(MIB)
            self.assertEqual(payload, b"job")
            self.assertTrue(meta.peer.startswith(f"uid={os.getuid()} "), meta.peer)

    def test_every_sync_dialling_endpoint_reports(self):
        server = weida.sync.Runtime()
        binding = server.bind_inproc(bus_name())
        registered = [binding.replier("/r"), binding.puller("/jobs"), binding.publisher("/p"), binding.pair("/pair"),
                      binding.respondent("/s"), binding.radio("/cam"), binding.bus("/bus", by_address())]
        self.addCleanup(lambda: [r.close() for r in registered])  # held open until the test ends
        client = weida.sync.Runtime()
        other = client.bind_inproc(bus_name())
        endpoints = {"/r": client.requester(by_address()), "/jobs": client.pusher(by_address()),
                     "/p": client.subscriber(by_address()), "/pair": client.pair(by_address()),
                     "/s": client.surveyor(by_address()), "/cam": client.dish(by_address()),
                     "/bus": other.bus("/bus", by_address())}
        for path, endpoint in endpoints.items():
            with self.subTest(path=path):
                endpoint.connect(binding.url(path))
                self.assertEqual([s.url for s in endpoint.connection_stats()], [binding.url(path)])

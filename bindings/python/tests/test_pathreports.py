"""Path reports (PROTOCOL.md §8.9): ``Runtime(path_report=True)`` on both
ends fills ``connection_stats()[i].remote`` over QUIC with the peer's
record, on both surfaces; nothing over a local transport, nor with one end
left off."""

import os

import weida
import weida.sync
from support import MIB, BoundedCase, by_address, until, until_sync

MEASURED = ("rtt", "min_rtt", "congestion_window", "lost_packets", "sent_packets", "tx_bytes", "rx_bytes")
UNMEASURED = ("current_mtu", "congestion_events", "tx_datagrams", "rx_datagrams")


class PathReports(BoundedCase):
    def check_record(self, remote):
        self.assertIsInstance(remote, weida.RemoteStats)
        for name in MEASURED:
            self.assertIsNotNone(getattr(remote, name), f"{name}, which quic-go measures: {remote!r}")
        for name in UNMEASURED:
            self.assertIsNone(getattr(remote, name), f"{name}, which quic-go does not measure: {remote!r}")
        self.assertGreater(remote.rtt, 0)
        self.assertGreater(remote.tx_bytes, 0)
        self.assertGreaterEqual(remote.age, 0)

    def test_sync_record_over_quic(self):
        server = weida.sync.Runtime(path_report=True)
        binding = server.bind("127.0.0.1:0", weida.Identity.generate())
        puller = binding.puller("/p")
        pusher = weida.sync.Runtime(path_report=True).pusher(by_address())
        pusher.connect(binding.url("/p"))
        pusher.send(b"x")
        self.assertEqual(puller.recv(MIB)[0], b"x")
        # The first record is sent right after connecting: one round trip.
        until_sync(lambda: pusher.connection_stats()[0].remote is not None, "the peer's path record", 15)
        self.check_record(pusher.connection_stats()[0].remote)

    async def test_asyncio_record_over_quic_and_none_with_one_end_off(self):
        server = weida.Runtime(path_report=True)
        binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
        puller = binding.puller("/p")
        on = weida.Runtime(path_report=True).pusher(by_address())
        await on.connect(binding.url("/p"))
        await until(lambda: on.connection_stats()[0].remote is not None, "the peer's path record", 15)
        self.check_record(on.connection_stats()[0].remote)

        off = weida.Runtime().pusher(by_address())
        await off.connect(binding.url("/p"))
        await off.send(b"y")  # a later stream than any REPORT the server could have opened
        self.assertEqual((await puller.recv(MIB))[0], b"y")
        (stats,) = off.connection_stats()
        self.assertTrue(stats.live)
        self.assertIsNone(stats.remote)

    def test_none_over_inproc(self):
        binding = weida.sync.Runtime(path_report=True).bind_inproc(f"py-pathreports-{os.getpid()}")
        puller = binding.puller("/p")
        pusher = weida.sync.Runtime(path_report=True).pusher(by_address())
        pusher.connect(binding.url("/p"))
        pusher.send(b"z")
        self.assertEqual(puller.recv(MIB)[0], b"z")
        (stats,) = pusher.connection_stats()
        self.assertEqual((stats.live, stats.transport, stats.remote), (True, None, None))

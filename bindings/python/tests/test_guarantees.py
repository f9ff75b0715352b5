"""Guarantee sets from Python: Runtime(ordering=..., dedup_window=...,
acknowledgement=..., require=...) reaches the library's, over QUIC."""

import asyncio

import weida
import weida.sync
from support import BoundedCase, by_address

PUSHES = 1000


class Ordering(BoundedCase):
    async def test_a_thousand_pushes_under_reassembly_arrive_in_order(self):
        server = weida.Runtime(ordering="reassemble")
        binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
        puller = binding.puller("/ordered")
        pusher = weida.Runtime(ordering="reassemble").pusher(by_address())
        await pusher.connect(binding.url("/ordered"))

        async def send_all():
            # One burst: the receiver grants no more streams than its
            # reorder hold can wait behind, so the sender cannot overrun it.
            for i in range(PUSHES):
                await pusher.send(str(i).encode())

        sender = asyncio.create_task(send_all())
        got = []
        for _ in range(PUSHES):
            payload, meta = await puller.recv(64)
            got.append((int(payload), meta.sequence, meta.missed))
        await sender
        self.assertEqual(got, [(i, i, None) for i in range(PUSHES)])
        self.assertEqual(server.suppressed_duplicates(), 0)

    async def test_requiring_what_a_core_peer_lacks_fails_naming_the_dimension(self):
        server = weida.Runtime()
        binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
        binding.puller("/core")
        pusher = weida.Runtime(ordering="reassemble").pusher(by_address())
        with self.assertRaises(weida.Negotiation) as caught:
            await pusher.connect(binding.url("/core"))
        self.assertIn("ordering", str(caught.exception))
        self.assertEqual(caught.exception.code, 9)  # WEIDA_ENEGOTIATION

    async def test_offered_but_not_required_connects_to_a_core_peer(self):
        server = weida.Runtime()
        binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
        puller = binding.puller("/core")
        pusher = weida.Runtime(ordering="reassemble", dedup_window=5.0, require=()).pusher(by_address())
        await pusher.connect(binding.url("/core"))
        await pusher.send(b"unnumbered")
        payload, meta = await puller.recv(64)
        self.assertEqual((payload, meta.sequence), (b"unnumbered", None))


class Refused(BoundedCase):
    """An unknown or contradictory set is refused when the runtime is made,
    naming the dimension, on both surfaces."""

    def test_refusals_name_the_dimension(self):
        cases = [
            (dict(ordering="sorted"), weida.InvalidArgument, "ordering"),
            (dict(ordering=2), TypeError, "ordering"),
            (dict(dedup_window=-1.0), weida.InvalidArgument, "dedup_window"),
            (dict(dedup_window=float("inf")), weida.InvalidArgument, "dedup_window"),
            (dict(require={"ordering"}), weida.InvalidArgument, "ordering"),
            (dict(ordering="detect", require={"latency"}), weida.InvalidArgument, "latency"),
            (dict(ordering="detect", require="ordering"), TypeError, "require"),
            # A well-formed level this build cannot honour is Unsupported.
            (dict(acknowledgement=weida.PROCESSED), weida.Unsupported, "acknowledgement"),
            (dict(acknowledgement=9), weida.RuntimeFailure, "acknowledgement"),
            # offered Accepted, not required: only a broker may offer more
            (dict(acknowledgement=weida.ACCEPTED, require=()), weida.RuntimeFailure, "acknowledgement"),
        ]
        for runtime in (weida.Runtime, weida.sync.Runtime):
            for kwargs, cls, dimension in cases:
                with self.subTest(runtime=runtime.__module__, kwargs=kwargs):
                    with self.assertRaises(cls) as caught:
                        runtime(**kwargs)
                    self.assertIn(dimension, str(caught.exception))

    def test_invalid_argument_is_a_value_error_and_a_runtime_failure(self):
        with self.assertRaises(ValueError) as caught:
            weida.sync.Runtime(ordering="sorted")
        self.assertIsInstance(caught.exception, weida.RuntimeFailure)
        self.assertEqual(caught.exception.code, 101)  # WEIDA_EINVAL

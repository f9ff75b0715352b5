"""The blocking surface on threads, after upstream's test_sync.py."""

import weida
import weida.sync
from weida._ffi import DONE_FN, lib
from support import MIB, BoundedCase, background, by_address, served_sync, until_sync


def echo(replier, times=1):
    for _ in range(times):
        request = replier.accept(MIB)
        request.reply(request.payload)


class Surface(BoundedCase):
    def test_submodule_and_shared_values(self):
        self.assertEqual(sorted(weida.sync.__all__), sorted([
            "Runtime", "Binding", "Requester", "Pusher", "Subscriber", "Replier", "Request", "Puller",
            "Publisher", "Paired", "Surveyor", "Respondent", "BusMember", "Radio", "Segment", "Dish", "Cursors",
            "Reporter"]))
        for name in weida.sync.__all__:
            self.assertTrue(hasattr(weida.sync, name), name)
            self.assertIsNot(getattr(weida.sync, name), getattr(weida, name))
        self.assertFalse(issubclass(weida.sync.Runtime, BaseException))
        # Streamed forms and the asyncio-only members are absent.
        self.assertFalse(hasattr(weida.sync.Pusher, "open"))
        self.assertFalse(hasattr(weida.sync.Puller, "recv_stream"))
        self.assertFalse(hasattr(weida.sync.Subscriber, "peer_count"))
        # Every public member, inherited ones included (the shared role base's, Handle's close).
        self.assertEqual({m for m in dir(weida.sync.Publisher) if not m.startswith("_")},
                         {"path", "publish", "subscriber_count", "dropped", "close"})

    def test_request_reply_on_threads(self):
        _, binding, client = served_sync()
        replier = binding.replier("/echo")
        background(echo, replier, 2)
        requester = client.requester(by_address())
        requester.connect(binding.url("/echo"))
        self.assertEqual(requester.request(b"one", MIB), b"one")
        self.assertEqual(requester.request(bytearray(b"two"), MIB), b"two")

    def test_push_and_publish(self):
        _, binding, client = served_sync()
        puller = binding.puller("/sink")
        publisher = binding.publisher("/news")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/sink"))
        pusher.send(b"work")
        payload, meta = puller.recv(MIB)
        self.assertEqual((payload, meta.endpoint), (b"work", "/sink"))
        self.assertIsInstance(meta, weida.IncomingMeta)  # the very class weida exports
        subscriber = client.subscriber(by_address())
        subscriber.connect(binding.url("/news"))
        subscriber.subscribe("px.#")
        until_sync(lambda: publisher.subscriber_count() == 1, "the subscriber")
        reached = []
        until_sync(lambda: reached.append(publisher.publish("px.eur", b"1.08")) or reached[-1] == 1,
                   "the subscription")
        payload, meta = subscriber.recv(MIB)
        self.assertEqual((payload, meta.topic), (b"1.08", "px.eur"))
        self.assertEqual(publisher.path(), "/news")
        self.assertEqual(publisher.dropped(), 0)

    def test_identical_failure_classes(self):
        _, binding, client = served_sync()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        requester.connect(binding.url("/echo"))

        def refuse_once():
            replier.accept(MIB).refuse()

        background(refuse_once)
        with self.assertRaises(weida.Rejected):
            requester.request(b"x", MIB)
        nowhere = client.requester(by_address())
        nowhere.connect(binding.url("/nothing"))
        with self.assertRaises(weida.UnknownEndpoint):
            nowhere.request(b"x", MIB)
        real = binding.fingerprint()
        with self.assertRaises(weida.Untrusted) as caught:
            client.requester(by_address()).connect(
                binding.url("/echo").replace(real, weida.Identity.generate().fingerprint()))
        self.assertIn(real, caught.exception.cause)
        with self.assertRaises(TypeError):
            requester.request("text", MIB)
        with self.assertRaises(weida.RuntimeFailure):
            client.surveyor(by_address()).survey(b"q", -1.0, 10)

    def test_request_is_spent_after_replying(self):
        _, binding, client = served_sync()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        requester.connect(binding.url("/echo"))
        asked = []
        background(lambda: asked.append(requester.request(b"q", MIB)))
        request = replier.accept(MIB)
        self.assertEqual((request.payload, request.meta.endpoint), (b"q", "/echo"))
        request.reply(b"a")
        with self.assertRaises(weida.RuntimeFailure):
            request.payload
        with self.assertRaises(weida.RuntimeFailure):
            request.meta
        with self.assertRaises(weida.NoReply):
            request.reply(b"again")
        until_sync(lambda: asked == [b"a"], "the reply")

    def test_runtime_drained_once(self):
        _, binding, client = served_sync()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/sink"))
        pusher.send(b"last")
        background(puller.recv, MIB)
        delivered, outstanding = client.drain(5.0)
        self.assertLessEqual(delivered, 1)
        self.assertEqual(outstanding, 0)
        with self.assertRaises(weida.RuntimeFailure):
            client.drain(1.0)
        with self.assertRaises(weida.RuntimeFailure):
            client.bind("127.0.0.1:0", weida.Identity.generate())

    def test_shutdown_wakes_blocked_calls_with_canceled(self):
        server, binding, _ = served_sync()
        puller = binding.puller("/sink")
        failures = []

        def receive():
            try:
                puller.recv(MIB)
            except weida.WeidaError as e:
                failures.append(e)

        receiver = background(receive)
        server.shutdown()
        receiver.join()
        self.assertEqual([type(e) for e in failures], [weida.Canceled])

    def test_factories_after_shutdown_or_drain_raise_runtime_failure(self):
        server, binding, client = served_sync()
        server.shutdown()
        client.drain(1.0)
        for runtime in (server, client):
            for factory in (runtime.requester, runtime.pusher, runtime.subscriber, runtime.pair, runtime.surveyor):
                with self.subTest(factory=factory.__name__), self.assertRaises(weida.RuntimeFailure):
                    factory(by_address())
        with self.assertRaises(weida.RuntimeFailure):
            binding.puller("/late")
        with self.assertRaises(weida.RuntimeFailure):
            server.bind("127.0.0.1:0", weida.Identity.generate())

    def test_pair_survey_and_bus(self):
        _, binding, client = served_sync()
        bound = binding.pair("/pair")
        dialler = client.pair(by_address())
        dialler.connect(binding.url("/pair"))
        dialler.send(b"hi")
        self.assertEqual(bound.recv(MIB)[0], b"hi")
        bound.send(b"hello")
        self.assertEqual(dialler.recv(MIB)[0], b"hello")
        self.assertEqual((bound.path(), bound.peer_count()), ("/pair", 1))

        respondent = binding.respondent("/vote")
        background(echo, respondent)
        surveyor = client.surveyor(by_address())
        surveyor.connect(binding.url("/vote"))
        survey = surveyor.survey(b"yes?", 2.0, MIB)
        self.assertIsInstance(survey, weida.Survey)
        self.assertEqual((survey.replies, survey.asked, survey.silent()), ([b"yes?"], 1, 0))
        self.assertEqual(surveyor.peer_count(), 1)

        other = weida.sync.Runtime().bind("127.0.0.1:0", weida.Identity.generate())
        a, b = binding.bus("/bus", by_address()), other.bus("/bus", by_address())
        a.connect(other.url("/bus"))
        self.assertEqual(a.peer_count(), 1)
        self.assertEqual(a.send(b"all"), 1)
        self.assertEqual(b.recv(MIB)[0], b"all")
        self.assertEqual((a.path(), a.dropped()), ("/bus", 0))

    def test_blocking_call_from_a_library_callback_is_refused(self):
        # The binding never runs user code on a library thread; this holds
        # the library to refusing it if anything ever did.
        _, binding, client = served_sync()
        binding.puller("/sink")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/sink"))
        outcome = []

        def on_done(user, code, a, b):
            try:
                pusher.send(b"from a callback")
            except weida.WeidaError as e:
                outcome.append(e)

        callback = DONE_FN(on_done)
        self.assertEqual(lib.weida_pusher_send_async(pusher._h, b"x", 1, callback, None, None), 0)
        until_sync(lambda: outcome, "the callback")
        self.assertIsInstance(outcome[0], weida.RuntimeFailure)
        self.assertIn("callback", outcome[0].cause)

"""The exception classes: the table against weida.h, and every mapping
raised for real where the library can be made to raise it."""

import re
import tempfile

import weida
import weida.sync
from weida import _errors
from weida._ffi import EBADHANDLE, EINTERNAL, EINVAL, ETIMEDOUT
from support import MIB, BoundedCase, by_address, header_path, served_sync

KINDS = ("RuntimeFailure", "InvalidAddress", "InvalidEndpointPath", "InvalidFingerprint",
         "AlreadyRegistered", "AddressInUse", "NotConnected", "ConnectionLost", "Negotiation",
         "Protocol", "Rejected", "UnknownEndpoint", "Unsupported", "NoParkedConnection", "NoReply",
         "Canceled", "Expired", "Indeterminate", "LimitExceeded", "DatagramsUnavailable", "TooLarge",
         "Tls", "Untrusted", "UntrustedPrincipal", "Io", "Transport")


def header_kinds():
    """code -> (variant, Python class name) from weida.h's enum comments,
    e.g. ``WEIDA_ERUNTIME = 1, /* Runtime (RuntimeFailure) */``."""
    found = {}
    pattern = re.compile(r"^\s*WEIDA_E\w+\s*=\s*(\d+),?\s*/\*\s*(\w+)(?:\s*\((\w+)\))?", re.M)
    for code, variant, python in pattern.findall(header_path().read_text()):
        if int(code) <= 26:
            found[int(code)] = (variant, python or variant)
    return found


class Table(BoundedCase):
    def test_python_table_matches_the_c_code_table(self):
        kinds = header_kinds()
        self.assertEqual(sorted(kinds), list(range(1, 27)), "weida.h must name codes 1..26")
        self.assertEqual(sorted(_errors.BY_CODE), list(range(1, 27)))
        for code, (variant, python) in kinds.items():
            with self.subTest(code=code):
                cls = _errors.BY_CODE[code]
                self.assertEqual(cls.__name__, python)
                self.assertEqual(cls.errno, variant)
                self.assertIs(getattr(weida, python), cls)

    def test_twenty_six_classes_under_weida_error(self):
        self.assertEqual(tuple(c.__name__ for c in _errors.BY_CODE.values()), KINDS)
        for name in KINDS:
            cls = getattr(weida, name)
            self.assertEqual(cls.__bases__[0], weida.WeidaError, name)  # then perhaps a built-in (test_native)
            self.assertTrue(cls.__doc__)
            self.assertIn(name, weida.__all__)
        self.assertTrue(issubclass(weida.WeidaError, Exception))
        self.assertFalse(issubclass(weida.Indeterminate, weida.ConnectionLost))
        self.assertFalse(issubclass(weida.ConnectionLost, weida.Indeterminate))
        self.assertEqual(weida.RuntimeFailure.errno, "Runtime")

    def test_every_code_maps_to_its_class_with_errno_and_cause(self):
        for code, cls in _errors.BY_CODE.items():
            with self.subTest(code=code):
                error = _errors.error_for(code, "the library's sentence")
                self.assertIs(type(error), cls)
                self.assertEqual((error.errno, error.cause, str(error)),
                                 (cls.errno, "the library's sentence", "the library's sentence"))
        for code in (EBADHANDLE, EINTERNAL, 999):
            self.assertIs(type(_errors.error_for(code, "x")), weida.RuntimeFailure)
        self.assertIs(type(_errors.error_for(EINVAL, "x")), weida.InvalidArgument)
        self.assertTrue(issubclass(weida.InvalidArgument, weida.RuntimeFailure))
        self.assertIs(type(_errors.error_for(ETIMEDOUT, "x")), weida.DeadlinePassed)
        self.assertTrue(issubclass(weida.DeadlinePassed, TimeoutError))
        self.assertTrue(_errors.error_for(EINVAL, "").cause)  # falls back to weida_strerror


class Raised(BoundedCase):
    """Each kind the library raises on demand, with its own sentence."""

    def assertKind(self, cls, call, *fragments):
        with self.assertRaises(cls) as caught:
            call()
        error = caught.exception
        self.assertIs(type(error), cls)
        self.assertEqual(error.errno, cls.errno)
        self.assertEqual(str(error), error.cause)
        for fragment in fragments:
            self.assertIn(fragment, error.cause)
        return error

    def test_raised_kinds(self):
        server, binding, client = served_sync()
        taken = binding.replier("/taken")
        identity = weida.Identity.generate()
        self.assertKind(weida.InvalidAddress, lambda: server.bind("nope", identity), "nope")
        self.assertKind(weida.AddressInUse, lambda: server.bind(binding.local_addr(), identity))
        self.assertKind(weida.InvalidEndpointPath, lambda: binding.replier("noslash"), "noslash")
        self.assertKind(weida.AlreadyRegistered, lambda: binding.puller(taken.path()))
        self.assertKind(weida.InvalidFingerprint, lambda: weida.Trust.pin("sha256:zz"), "sha256:zz")
        self.assertKind(weida.Protocol, lambda: client.subscriber(by_address()).subscribe("a.#.b"))
        self.assertKind(weida.Io, lambda: weida.Identity.from_pem_file("/nonexistent.pem").fingerprint(),
                        "/nonexistent.pem")
        with tempfile.NamedTemporaryFile("w", suffix=".pem") as corrupt:
            corrupt.write("not a PEM file")
            corrupt.flush()
            lazy = weida.Identity.from_pem_file(corrupt.name)  # read lazily: no failure yet
            self.assertKind(weida.Tls, lazy.fingerprint, corrupt.name)
        self.assertKind(weida.InvalidArgument, lambda: server.drain(float("nan")))  # a RuntimeFailure too
        closed = client.pusher(by_address())
        closed.close()
        self.assertKind(weida.RuntimeFailure, lambda: closed.send(b"x"))

    def test_raised_kinds_over_a_connection(self):
        _, binding, client = served_sync()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/sink"))
        pusher.send(b"too long")
        self.assertKind(weida.LimitExceeded, lambda: puller.recv(3), "3 bytes")
        paired = client.pair(by_address())
        binding.pair("/pair")
        paired.connect(binding.url("/pair"))
        self.assertKind(weida.LimitExceeded, lambda: paired.connect(binding.url("/pair")))
        nowhere = client.requester(by_address())
        nowhere.connect(binding.url("/nothing"))
        self.assertKind(weida.UnknownEndpoint, lambda: nowhere.request(b"x", MIB))
        real = binding.fingerprint()
        wrong = binding.url("/sink").replace(real, weida.Identity.generate().fingerprint())
        self.assertKind(weida.Untrusted, lambda: client.pusher(by_address()).connect(wrong), real)
        plain = f"weida://{binding.local_addr()}/sink"  # names no key: the trust decides
        pinned = client.pusher(weida.Trust.pin(weida.Identity.generate().fingerprint()))
        self.assertKind(weida.Untrusted, lambda: pinned.connect(plain), real)
        client.pusher(weida.Trust.pin(real)).connect(plain)

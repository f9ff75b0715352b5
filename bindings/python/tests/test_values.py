"""The value classes both surfaces share: Trust, Identity, IncomingMeta, Survey."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import weida
import weida.sync
from support import MIB, BoundedCase, background, served_sync


def self_signed(directory: Path) -> tuple:
    """(identity PEM with chain and key, certificate PEM) made by openssl."""
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    identity = directory / "identity.pem"
    identity.write_bytes(cert.read_bytes() + key.read_bytes())
    return identity, cert


class Values(BoundedCase):
    def test_identity_fingerprints(self):
        generated = weida.Identity.generate()
        self.assertRegex(generated.fingerprint(), r"^sha256:[0-9a-f]{64}$")
        self.assertNotEqual(generated.fingerprint(), weida.Identity.generate().fingerprint())
        named = weida.Identity.generate_for(["localhost", "127.0.0.1"])
        self.assertRegex(named.fingerprint(), r"^sha256:[0-9a-f]{64}$")
        with self.assertRaises(TypeError):
            weida.Identity.generate_for("localhost")  # one str is not a list of names

    def test_trust_constructors(self):
        self.assertIsInstance(weida.Trust.by_address(), weida.Trust)
        fingerprint = weida.Identity.generate().fingerprint()
        self.assertIsInstance(weida.Trust.pin(fingerprint), weida.Trust)
        with self.assertRaises(weida.InvalidFingerprint):
            weida.Trust.pin(fingerprint[:-1])
        with self.assertRaises(weida.Io):
            weida.Trust.anchor_file("/nonexistent/anchors.pem")
        with self.assertRaises(weida.Io):
            weida.Trust.pin_file("/nonexistent/members.keys")
        with tempfile.TemporaryDirectory() as tmp:
            keys = Path(tmp) / "members.keys"
            keys.write_text(f"# a cluster\n{fingerprint}  # 127.0.0.1:7443\n")
            self.assertIsInstance(weida.Trust.pin_file(str(keys)), weida.Trust)
            keys.write_text(f"{fingerprint}\nnot a key\n")
            with self.assertRaisesRegex(weida.InvalidFingerprint, "line 2"):
                weida.Trust.pin_file(str(keys))
        with self.assertRaises(TypeError):
            weida.sync.Runtime().pusher("by_address")

    def test_pem_identity_and_anchor_trust(self):
        if not shutil.which("openssl"):
            self.skipTest("openssl is needed to make a certificate")
        with tempfile.TemporaryDirectory() as tmp:
            identity_pem, cert_pem = self_signed(Path(tmp))
            identity = weida.Identity.from_pem_file(str(identity_pem))
            server = weida.sync.Runtime()
            binding = server.bind("127.0.0.1:0", identity)
            self.assertEqual(binding.fingerprint(), identity.fingerprint())
            puller = binding.puller("/sink")
            port = binding.local_addr().rsplit(":", 1)[1]
            pusher = weida.sync.Runtime().pusher(weida.Trust.anchor_file(str(cert_pem)))
            pusher.connect(f"weida://localhost:{port}/sink")  # a plain address, trusted via the anchor
            pusher.send(b"anchored")
            self.assertEqual(puller.recv(MIB)[0], b"anchored")

    def test_incoming_meta_has_fifteen_attributes(self):
        meta = weida.IncomingMeta(endpoint="/e", content_len=4)
        self.assertEqual(len(weida.IncomingMeta.__slots__), 15)
        self.assertEqual((meta.endpoint, meta.content_len, meta.topic, meta.report), ("/e", 4, None, []))
        # Absent, the delivery attempt is the first; absent achieved claims nothing.
        self.assertEqual((meta.delivery_attempt, meta.achieved), (1, None))
        self.assertIn("endpoint='/e'", repr(meta))
        self.assertNotIn("delivery_attempt", repr(meta))
        self.assertIn("delivery_attempt=2", repr(weida.IncomingMeta(delivery_attempt=2)))
        self.assertIsNot(meta.report, weida.IncomingMeta().report)  # no shared default list

    def test_survey_value(self):
        _, binding, client = served_sync()
        respondent = binding.respondent("/vote")

        def refuse():
            respondent.accept(MIB).refuse()

        background(refuse)
        surveyor = client.surveyor(weida.Trust.by_address())
        surveyor.connect(binding.url("/vote"))
        survey = surveyor.survey(b"q", 2.0, MIB)
        self.assertIs(type(survey), weida.Survey)
        self.assertEqual((survey.replies, survey.asked, survey.failed, survey.silent()), ([], 1, 1, 0))
        self.assertIn("failed=1", repr(survey))

"""A replicated queue on three ``weida broker --cluster`` members
(docs/CLUSTER.md §5): a producer given one member's URL is taken to the
queue's leader by the Go core and hears ACCEPTED, REPLICATED and PROCESSED.

Each member's URL is tried in turn, so at least two of the producers start
at a follower. The members are subprocesses of ``WEIDA_CLI`` (built by
tests/python/run.sh); their keys, ports and cluster file are made here, and
the trust is the file ``--trust-out`` writes.
"""

import json
import os
import selectors
import socket
import subprocess
import tempfile
from pathlib import Path

import weida
from support import MIB, BoundedCase

START_SECONDS = 10.0
LEVELS = [weida.ACCEPTED, weida.REPLICATED, weida.PROCESSED]


def cli() -> str:
    path = os.environ.get("WEIDA_CLI")
    if not path or not os.access(path, os.X_OK):
        raise AssertionError(f"WEIDA_CLI must name the weida CLI binary (tests/python/run.sh builds it); got {path!r}")
    return path


def free_ports(n: int) -> list:
    """n loopback UDP ports nobody held a moment ago (all held at once, so
    none repeats; the cluster file must name its members' ports)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def first_line(proc: subprocess.Popen) -> str:
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(START_SECONDS):
            raise AssertionError(f"a member printed no address within {START_SECONDS} s")
    return proc.stdout.readline().strip()


class Cluster:
    """Three members serving the replicated, written queue /jobs."""

    def __init__(self, root: Path) -> None:
        ports = free_ports(6)
        keys, members = [], []
        for i in range(3):
            key = root / f"member{i}.pem"
            fp = subprocess.run([cli(), "keygen", str(key)], capture_output=True, text=True, check=True).stdout.strip()
            keys.append(key)
            members.append({"url": f"weida://{fp}@127.0.0.1:{ports[2 * i]}", "raft": f"127.0.0.1:{ports[2 * i + 1]}"})
        config = root / "cluster.json"
        config.write_text(json.dumps({"members": members, "queues": [{"path": "/jobs", "durability": "written"}]}))
        self.trust = root / "members.keys"
        self.procs, self.urls = [], []
        for i in range(3):
            args = [cli(), "broker", f"weida://127.0.0.1:{ports[2 * i]}/jobs", "--cluster", str(config),
                    "--identity", str(keys[i]), "--data", str(root / f"data{i}")]
            if i == 0:
                args += ["--trust-out", str(self.trust)]
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.procs.append(proc)
            line = first_line(proc)
            if not line.startswith("weida://"):
                raise AssertionError(f"member {i} printed {line!r}, not an address; stderr: {self.stop()}")
            self.urls.append(line)

    def stop(self) -> str:
        errs = []
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                _, err = proc.communicate(timeout=START_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            errs.append(err)
        return "\n".join(errs)


class Redirect(BoundedCase):
    def setUp(self):
        super().setUp()
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.cluster = Cluster(Path(tmp.name))
        self.addCleanup(self.cluster.stop)

    async def test_a_producer_given_any_member_reaches_the_leader(self):
        trust = weida.Trust.pin_file(str(self.cluster.trust))
        consumer = weida.Runtime().subscriber(trust)
        await consumer.connect(self.cluster.urls[-1])
        await consumer.subscribe("")
        await consumer.grant(len(self.cluster.urls))
        for i, url in enumerate(self.cluster.urls):
            pusher = weida.Runtime().pusher(trust)
            await pusher.connect(url)
            body = f"job via member {i}".encode()
            cursors = await pusher.send(body, report=LEVELS)

            payload, _, reporter = await consumer.recv_reporting(MIB)
            self.assertEqual(payload, body)
            await reporter.report(weida.PROCESSED, len(payload))
            await reporter.finish()

            while (snapshot := await cursors.changed()) is not None and weida.PROCESSED not in snapshot:
                pass
            self.assertEqual(cursors.snapshot(), {level: len(body) for level in LEVELS}, f"member {i}'s producer")

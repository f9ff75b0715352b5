"""smoke.py — what the installed wheel must prove (SURFACE.md §2.9), under a
30 s bound. Run it with the interpreter of the environment the wheel was
installed into, from a directory outside the source tree:

    python smoke.py

1. the installed distribution is named weida and has the declared version;
2. every name in weida.__all__ resolves; RuntimeFailure and Untrusted derive
   from WeidaError; weida.Runtime is not an exception class;
3. Req/Rep, Push/Pull and Pub/Sub over real QUIC, both halves in one process;
4. a 10 MiB streamed fan-out (160 x 64 KiB via write_within) reaches a
   subscriber whose budget is 8 MiB;
5. a URL with a wrong fingerprint fails connect with Untrusted naming the key.

Exit status 0 and a last line "smoke: ok" when every step passed.
"""

import asyncio
import faulthandler
import importlib.metadata
import sys
import time

BOUND_SECONDS = 30
faulthandler.dump_traceback_later(BOUND_SECONDS, exit=True)  # a hang fails, never stalls

import weida  # noqa: E402  (imported under the watchdog: loading starts the Go runtime)
import weida.sync  # noqa: E402,F401


def step(n: int, text: str) -> None:
    print(f"smoke {n}: {text}", flush=True)


async def until(condition, what: str, seconds: float = 5.0) -> None:
    """Waits for an observable condition (a subscription reaching the publisher)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def check_distribution() -> None:
    version = importlib.metadata.version("weida")
    assert version == weida.__version__, (version, weida.__version__)
    assert "site-packages" in weida.__file__, f"weida imported from {weida.__file__}, not an installed wheel"
    step(1, f"distribution weida {version} at {weida.__file__}")


def check_names() -> None:
    missing = [n for n in weida.__all__ if not hasattr(weida, n)]
    assert not missing, f"names in __all__ that do not resolve: {missing}"
    assert issubclass(weida.RuntimeFailure, weida.WeidaError)
    assert issubclass(weida.Untrusted, weida.WeidaError)
    assert not (isinstance(weida.Runtime, type) and issubclass(weida.Runtime, BaseException))
    assert weida.VERSION == 0 and isinstance(weida.ALPN, bytes)
    step(2, f"{len(weida.__all__)} names resolve; exceptions derive from WeidaError")


async def check_patterns(binding, client) -> None:
    replier = binding.replier("/echo")
    puller = binding.puller("/sink")
    publisher = binding.publisher("/news")

    async def echo_once() -> None:
        request = await replier.accept(1 << 20)
        await request.reply(request.payload)

    server = asyncio.ensure_future(echo_once())
    requester = client.requester(weida.Trust.by_address())
    await requester.connect(binding.url("/echo"))
    assert await requester.request(b"ping", 1 << 20) == b"ping"
    await server

    pusher = client.pusher(weida.Trust.by_address())
    await pusher.connect(binding.url("/sink"))
    await pusher.send(b"work item")
    payload, meta = await puller.recv(1 << 20)
    assert payload == b"work item" and meta.endpoint == "/sink", (payload, meta)

    subscriber = client.subscriber(weida.Trust.by_address())
    await subscriber.connect(binding.url("/news"))
    await subscriber.subscribe("px.#")
    await until(lambda: publisher.filter_count() >= 1, "the subscription")
    assert publisher.publish("px.eur", b"1.08") == 1
    payload, meta = await subscriber.recv(1 << 20)
    assert payload == b"1.08" and meta.topic == "px.eur", (payload, meta)
    step(3, "Req/Rep, Push/Pull and Pub/Sub over QUIC")


async def check_fanout(binding, client) -> None:
    publisher = binding.publisher("/big")
    subscriber = client.subscriber(weida.Trust.by_address())
    await subscriber.connect(binding.url("/big"))
    await subscriber.subscribe("")
    await until(lambda: publisher.filter_count() >= 1, "the subscription")

    async def read_all() -> int:
        stream, _ = await subscriber.recv_stream()
        total = 0
        while piece := await stream.read(1 << 20):
            total += len(piece)
        return total

    reader = asyncio.ensure_future(read_all())
    fanout = publisher.open("blob")
    chunk = bytes(64 << 10)
    for _ in range(160):
        assert await fanout.write_within(chunk, 5.0) == 1, "the subscriber lost its copy"
    assert await fanout.finish() == 1
    assert await reader == 10 << 20
    step(4, "10 MiB streamed fan-out reached a subscriber with an 8 MiB budget")


async def check_untrusted(binding, client) -> None:
    real = binding.fingerprint()
    wrong = weida.Identity.generate().fingerprint()
    url = binding.url("/echo").replace(real, wrong)
    requester = client.requester(weida.Trust.by_address())
    try:
        await requester.connect(url)
    except weida.Untrusted as e:
        assert real in e.cause, f"Untrusted does not name the key that answered: {e.cause}"
    else:
        raise AssertionError("a wrong fingerprint was accepted")
    step(5, "a wrong fingerprint is Untrusted, naming the real key")


async def main() -> None:
    check_distribution()
    check_names()
    server = weida.Runtime()
    binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
    client = weida.Runtime()
    await check_patterns(binding, client)
    await check_fanout(binding, client)
    await check_untrusted(binding, client)


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(), BOUND_SECONDS - 2))
    faulthandler.cancel_dump_traceback_later()
    print("smoke: ok")
    sys.exit(0)

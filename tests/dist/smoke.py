"""The installed wheel on the machine it was copied to (tests/dist/roots.sh
runs it in Debian 11 roots, arm64 under qemu-user): the package imports, its
constants and versions are the release's, and one request crosses real QUIC
on loopback, both halves in this process.

    python smoke.py VERSION      VERSION as the VERSION file says it
"""

import asyncio
import faulthandler
import importlib.metadata
import platform
import sys

faulthandler.dump_traceback_later(120, exit=True)  # qemu is slow; a hang still fails

import weida  # noqa: E402  (under the watchdog: loading starts the Go runtime)
import weida.sync  # noqa: E402,F401
from weida import _ffi  # noqa: E402


async def main(version: str) -> None:
    assert weida.VERSION == 0 and weida.ALPN == b"weida/0", (weida.VERSION, weida.ALPN)
    library = _ffi.lib.weida_version().decode()
    assert library == version, f"libweida says {library}, the release is {version}"
    assert _ffi.lib.weida_abi_version() == _ffi.ABI_VERSION
    print(f"smoke.py: weida {importlib.metadata.version('weida')} (library {library}, C ABI "
          f"{_ffi.ABI_VERSION}) on {platform.machine()}, {' '.join(platform.libc_ver())}, Python "
          f"{platform.python_version()}", flush=True)
    server = weida.Runtime()
    binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
    replier = binding.replier("/echo")

    async def answer() -> None:
        request = await replier.accept(1 << 20)
        await request.reply(request.payload.upper())

    answering = asyncio.ensure_future(answer())
    requester = weida.Runtime().requester(weida.Trust.by_address())
    await requester.connect(binding.url("/echo"))
    reply = await requester.request(b"ping", 1 << 20)
    assert reply == b"PING", reply
    await answering
    print(f"smoke.py: {binding.url('/echo')} answered {reply!r} over QUIC")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
    faulthandler.cancel_dump_traceback_later()
    print("smoke.py: ok")

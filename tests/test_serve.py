"""`plybits serve` with several server processes: the listening socket it shares makes connections that send
without delay (TCP_NODELAY), as a single server process's do (issue 17: uvicorn's shared socket left Nagle's
algorithm on, and each keep-alive answer waited ~40 ms for the client's delayed ACK)."""

from __future__ import annotations

import asyncio
import socket

import uvicorn

from app.cli import tcp_listener


def nodelay_of_accepted(listener: socket.socket) -> int:
    """TCP_NODELAY on a connection asyncio accepts on ``listener`` (as uvicorn's server does)."""
    seen: list[int] = []

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.01)
        writer.close()
        server.close()
        await server.wait_closed()

    asyncio.run(accept_one())
    return seen[0]


def test_the_shared_listener_makes_nodelay_connections() -> None:
    config = uvicorn.Config("app.main:app", host="127.0.0.1", port=0, workers=2)
    listener = tcp_listener(config.bind_socket())
    assert listener.proto == socket.IPPROTO_TCP
    assert nodelay_of_accepted(listener) == 1


def test_a_socket_that_says_tcp_is_kept_as_it_is() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        assert tcp_listener(sock) is sock

"""PostgreSQL appends through a link with a round trip of its own: what a hosted database costs.

A throwaway cluster (fsync on) is reached through a TCP proxy that delivers each chunk, either
way, `--rtt / 2` seconds after it came, so every round trip an append makes costs the round
trip given (the event loop's timers wait whole milliseconds: a delay rounds up to the next
one, so keep `--rtt` a few milliseconds). Not collected by pytest; run by hand:

    .venv/bin/python tests/perf/pg_latency.py            # 5 ms round trips
    .venv/bin/python tests/perf/pg_latency.py --rtt 0.02
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger import Ledger
from tests import pgcluster
from tests.longstreams import lines, skirmish


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            due, data = await queue.get()
            if not data:
                writer.close()
                return
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            writer.write(data)
            await writer.drain()

    task = asyncio.create_task(deliver())
    while data := await reader.read(65536):
        await queue.put((time.monotonic() + delay, data))
    await queue.put((0.0, b""))
    await task


def _proxy(socket_dir: Path, port: int, delay: float) -> None:
    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_unix_connection(f"{socket_dir}/.s.PGSQL.5432")
        await asyncio.gather(
            _pump(client_r, server_w, delay), _pump(server_r, client_w, delay),
            return_exceptions=True,
        )  # fmt: skip

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtt", type=float, default=0.005, help="round trip, in seconds")
    parser.add_argument("--appends", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ledger-latency-pg-"))
    pgcluster.start(folder, durable=True)
    try:
        # A process of its own: in this one it would share the GIL with the appends it delays.
        port = 55432
        proxy = multiprocessing.get_context("fork").Process(
            target=_proxy, args=(folder, port, args.rtt / 2), daemon=True
        )
        proxy.start()
        _wait_for(port)
        stream = list(skirmish(args.appends + 16))
        with Ledger(f"postgresql://postgres@127.0.0.1:{port}/postgres") as ledger:
            ledger.import_lines(lines(iter(stream[:15])), into="far")
            ledger.record("far", stream[15])  # warm: the pool and the fold
            start = time.perf_counter()
            for item in stream[16:]:
                ledger.record("far", item)
            took = (time.perf_counter() - start) / args.appends
        print(f"{took * 1e3:.2f} ms an append through a {args.rtt * 1e3:g} ms round trip")
        proxy.terminate()
    finally:
        pgcluster.stop(folder)


def _wait_for(port: int) -> None:
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"the proxy did not listen on port {port}")


if __name__ == "__main__":
    main()

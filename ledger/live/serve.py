"""`encounter serve`: the live page over HTTP, on Starlette and uvicorn (the optional extra
`[serve]`, imported only here, only when the command runs).

One thread follows the encounter (`Ledger.follow`, on a connection of its own) and rebuilds
the page when an event is appended; each browser holds one server-sent-events stream, sent
the new version within a tenth of a second of the rebuild. The page is read-only: GET only,
no form, no write path. On 127.0.0.1 it answers only requests naming this machine (a web page
elsewhere cannot reach it through DNS rebinding); on any other address every request must
carry the random read-only token printed in the URL, or gets 403.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.api import Ledger
from ledger.errors import BadInput
from ledger.live import page as pages
from ledger.store import DEFAULT_TENANT

if TYPE_CHECKING:
    from starlette.applications import Starlette

#: The addresses that mean this machine only.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: How often a stream looks for a new version of the page, and sends a keep-alive when idle.
TICK = 0.1
KEEP_ALIVE = 15.0
#: The headers of every answer: nothing cached, sniffed, framed or referred.
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": pages.CSP + "; frame-ancestors 'none'",
}


@dataclass
class Feed:
    """The page as it stands, rebuilt by the follower thread, read by every stream."""

    build: Callable[[], pages.Page]
    version: int = 0
    page: pages.Page | None = None
    document: str = ""
    closed: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self) -> None:
        """Rebuild the page (and the stream's message of it)."""
        page = self.build()
        message = json.dumps(pages.document(page), ensure_ascii=False)
        with self.lock:
            self.page, self.document = page, message
            self.version += 1

    def current(self) -> tuple[int, pages.Page | None, str]:
        """The version, the page and the stream's message, as of one moment."""
        with self.lock:
            return self.version, self.page, self.document


def token_for(host: str) -> str | None:
    """A random read-only token for a page served beyond this machine (None on loopback)."""
    return None if host in LOOPBACK else secrets.token_urlsafe(18)


def app(feed: Feed, token: str | None, host: str) -> Starlette:
    """The web app: the page, its stream, and nothing else."""
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.requests import Request
        from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
        from starlette.routing import Route
    except ImportError as exc:
        raise missing_extra() from exc

    def allowed(request: Request) -> bool:
        given = request.query_params.get("token", "")
        return token is None or hmac.compare_digest(given.encode(), token.encode())

    def refused() -> Response:
        return PlainTextResponse(
            "403: this page needs the token of the URL `encounter serve` printed",
            status_code=403,
            headers=HEADERS,
        )

    async def index(request: Request) -> Response:
        if not allowed(request):
            return refused()
        _, page, _ = feed.current()
        assert page is not None
        return HTMLResponse(pages.render(page, whole=True), headers=HEADERS)

    async def stream(request: Request) -> Response:
        if not allowed(request):
            return refused()
        return StreamingResponse(
            _messages(feed, request), media_type="text/event-stream", headers=HEADERS
        )

    middleware = []
    if host in LOOPBACK:
        # Only a request naming this machine: a page elsewhere cannot rebind a name to it.
        names = ["127.0.0.1", "localhost", "[::1]", "::1"]
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=names))
    routes = [Route("/", index, methods=["GET"]), Route("/events", stream, methods=["GET"])]
    return Starlette(routes=routes, middleware=middleware)


async def _messages(feed: Feed, request: Any) -> AsyncIterator[str]:
    """The page's stream: each new version as a `page` event, a comment when idle."""
    seen, idle = -1, 0.0
    while not feed.closed.is_set():
        version, page, document = feed.current()
        if version != seen and page is not None:
            seen, idle = version, 0.0
            yield f"event: page\nid: {page.seq}\ndata: {document}\n\n"
            continue
        if idle >= KEEP_ALIVE:
            idle = 0.0
            yield ": still here\n\n"
        if await request.is_disconnected():
            return
        await asyncio.sleep(TICK)
        idle += TICK


def missing_extra() -> BadInput:
    """The error when the web stack is not installed."""
    return BadInput(
        "encounter serve needs the optional extra [serve]: pip install 'encounter-ledger[serve]'",
        code="missing-extra",
    )


def lan_address() -> str:
    """This machine's address on the LAN, as the players' devices reach it (best effort: the
    first non-loopback IPv4 address its name resolves to)."""
    try:
        found = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    for *_, address in found:
        ip = str(address[0])
        if not ip.startswith("127."):
            return ip
    return "127.0.0.1"


def url(host: str, port: int, token: str | None) -> str:
    """The address to give the players."""
    shown = host if host in LOOPBACK else lan_address()
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def run(
    location: str,
    encounter: str,
    *,
    host: str,
    port: int,
    poll: float,
    tenant: str = DEFAULT_TENANT,
) -> None:
    """Serve the page until Ctrl-C."""
    try:
        import uvicorn
    except ImportError as exc:
        raise missing_extra() from exc
    token = token_for(host)
    with Ledger(location, create=False, readonly=True, tenant=tenant) as book:
        feed = Feed(lambda: pages.build(book, encounter))
        feed.refresh()
        head = book.store.require(encounter).seq
        follower = threading.Thread(
            target=_follow, args=(location, encounter, head, poll, feed, tenant), daemon=True
        )
        web = app(feed, token, host)
        config = uvicorn.Config(
            web, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1
        )
        server = uvicorn.Server(config)
        listening = _bound(host, port)
        print(
            f"Serving {encounter!r} read-only at {url(host, port, token)} (Ctrl-C stops).",
            flush=True,
        )
        if token is not None:
            print(
                "Anyone with this URL can read the page: share it only with the table.",
                file=sys.stderr,
                flush=True,
            )
        follower.start()
        try:
            server.run(sockets=[listening])
        finally:
            listening.close()
            feed.closed.set()
            follower.join(timeout=2)


def _bound(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port`, for uvicorn to listen on: bound here, because
    uvicorn ends a failed bind with a log line and exit code 3, which the ledger keeps for a
    write conflict; here it is bad input (a port in use, a host that does not resolve)."""
    listening = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        raise BadInput(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from exc
    listening.set_inheritable(True)
    return listening


def _follow(location: str, encounter: str, head: int, poll: float, feed: Feed, tenant: str) -> None:
    """Rebuild the page after each append (once for a burst: not while more are stored)."""
    with Ledger(location, create=False, readonly=True, tenant=tenant) as book:
        for followed in book.follow(encounter, after=head, poll=poll, stop=feed.closed.is_set):
            latest = book.store.head(encounter)
            if latest is not None and latest.seq > followed.seq:
                continue  # more to come at once: build the page once, at the last of them
            feed.refresh()

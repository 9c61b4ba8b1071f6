"""The HTTP server of ``ckc-serve`` (the standard library's ``ThreadingHTTPServer``).

| route | what |
|---|---|
| ``GET /`` | the page |
| ``GET /api/options`` | the players a game may seat, the player counts, the replays |
| ``POST /api/games`` | a new game: ``{"players": 4, "seat": 0, "opponents": [...], "stasi": false, "cafe_adler": false, "seed": 7}`` |
| ``GET /api/games/ID`` | the game as the person's seat sees it: its picture, the legal choices |
| ``POST /api/games/ID/act`` | ``{"action": 12}``: the person's choice, then the others' until the person's next |
| ``GET /api/replays/K?step=S&seat=P`` | replay K before step S, as seat P (or the spectator) sees it |

A client may send at most :data:`MAX_BODY` bytes of JSON; anything else (another method, another
path, a body too long or not JSON, a value out of range) is answered with a JSON ``{"error": ...}``
naming the problem and the accepted values, and changes nothing.
"""

from __future__ import annotations

import json
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .tables import RequestError, Tables

MAX_BODY = 4096
GAME = re.compile(r"^/api/games/([0-9a-f]{16})$")
ACT = re.compile(r"^/api/games/([0-9a-f]{16})/act$")
REPLAY = re.compile(r"^/api/replays/(\d{1,4})$")


def page() -> bytes:
    return resources.files(__package__).joinpath("page.html").read_bytes()


def handler(tables: Tables) -> type[BaseHTTPRequestHandler]:
    """A request handler bound to ``tables``."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "ckc-serve"
        quiet = True

        def log_message(self, format: str, *args: Any) -> None:
            if not self.quiet:
                super().log_message(format, *args)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            try:
                if parts.path in ("/", "/index.html"):
                    self._send(HTTPStatus.OK, page(), "text/html; charset=utf-8")
                elif parts.path == "/api/options":
                    self._json(tables.options())
                elif match := GAME.match(parts.path):
                    self._json(tables.show(match.group(1)))
                elif match := REPLAY.match(parts.path):
                    query = parse_qs(parts.query, max_num_fields=4)
                    first = {key: values[0] for key, values in query.items()}
                    self._json(tables.replay_step(int(match.group(1)), first.get("step", "0"), first.get("seat")))
                else:
                    raise RequestError(f"no page {parts.path[:80]!r}: the pages are / and /api/...", 404)
            except RequestError as exc:
                self._error(exc)

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            try:
                body = self._body()
                if path == "/api/games":
                    self._json(tables.new_game(body))
                elif match := ACT.match(path):
                    self._json(tables.act(match.group(1), body))
                else:
                    raise RequestError(f"nothing to post to {path[:80]!r}: /api/games or /api/games/ID/act", 404)
            except RequestError as exc:
                self._error(exc)

        def _body(self) -> Any:
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                raise RequestError("a POST needs a Content-Length", HTTPStatus.LENGTH_REQUIRED)
            if int(length) > MAX_BODY:
                raise RequestError(f"a request body is at most {MAX_BODY} bytes", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            raw = self.rfile.read(int(length))
            try:
                return json.loads(raw or b"{}")
            except (ValueError, UnicodeDecodeError):
                raise RequestError("the request body must be JSON") from None

        def _json(self, data: Any) -> None:
            self._send(HTTPStatus.OK, json.dumps(data).encode(), "application/json")

        def _error(self, exc: RequestError) -> None:
            self._send(exc.status, json.dumps({"error": str(exc)}).encode(), "application/json")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def do_PUT(self) -> None:
            self._error(RequestError("only GET and POST are served", HTTPStatus.METHOD_NOT_ALLOWED))

        do_DELETE = do_PATCH = do_PUT  # noqa: N815

    return Handler


def serve(tables: Tables, host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    """A server bound to ``host:port`` (port 0: a free one), not yet serving: call
    ``serve_forever()``, or :func:`start` for a background thread."""
    server = ThreadingHTTPServer((host, port), handler(tables))
    server.daemon_threads = True
    return server


def start(tables: Tables, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server serving from a daemon thread (tests, notebooks); ``server.shutdown()`` stops it."""
    server = serve(tables, host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server

"""The studio's web server: the standard library's ThreadingHTTPServer on 127.0.0.1, one plain
HTML page (page.html, inline JavaScript, no build step) and server-sent events.

Every request must carry the session's token (`?token=` or the X-Studio-Token header; random per
start, printed in the URL as Jupyter does), else 403. Routes:

    GET  /                      the page
    GET  /api/games             the registered games
    GET  /api/form?game=&preset=&players=   a game's controls (form.game_form)
    GET  /api/events            the state as server-sent events, while the page is open
    POST /api/check  {settings} the CLI's one-line message for the settings, or ok
    POST /api/play   {settings} check, then play live (the running play stops)
    POST /api/stop | /api/pin | /api/unpin {index} | /api/save

Each request runs in its own thread, so tabs, reloads and closed tabs only open and close event
streams; the studio's state (session.Studio) is shared by all of them. Ctrl-C stops the live run,
waits for a save in progress and closes the server.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from simulator.errors import ZoosimError
from simulator.games import game_names
from simulator.processes import terminate_on_sigterm
from simulator.studio.form import default_settings, games_list, settings_from_experiment
from simulator.studio.session import Studio

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_BODY_BYTES = 1_000_000
# The event stream sends the state this often while a run plays (at least once a second, as the
# issue asks), and a comment line this often when nothing changes (to notice a closed tab).
EVENT_SECONDS = 0.25
KEEPALIVE_SECONDS = 10.0


class StudioServer(ThreadingHTTPServer):
    daemon_threads = True  # an open event stream never holds the process at exit
    allow_reuse_address = True

    def __init__(self, studio: Studio, port: int):
        super().__init__((HOST, port), StudioHandler)
        self.studio = studio
        self.token = secrets.token_urlsafe(24)
        self.page = resources.files("simulator.studio").joinpath("page.html").read_text(encoding="utf-8")
        self.closing = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/?token={self.token}"


class StudioHandler(BaseHTTPRequestHandler):
    server: StudioServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows the URL and errors, not every request

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        if not self._authorized(query):
            return
        studio = self.server.studio
        if url.path == "/":
            self._send(HTTPStatus.OK, self.server.page.encode("utf-8"), "text/html; charset=utf-8")
        elif url.path == "/api/games":
            self._answer(lambda: {"games": games_list(), "start": studio.start})
        elif url.path == "/api/form":
            self._answer(lambda: studio.form(query.get("game", ""), query.get("preset") or None,
                                             int(query["players"]) if query.get("players", "").isdigit() else None))
        elif url.path == "/api/events":
            self._events()
        else:
            self._send_json(HTTPStatus.NOT_FOUND, {"ok": False, "error": f"no page {url.path}"})

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        if not self._authorized(query):
            return
        body = self._body()
        if body is None:
            return
        studio = self.server.studio
        routes = {
            "/api/check": lambda: studio.check(body.get("settings")) and {},
            "/api/play": lambda: studio.play(body.get("settings")),
            "/api/stop": studio.stop,
            "/api/pin": studio.pin,
            "/api/unpin": lambda: studio.unpin(int(body.get("index", -1))),
            "/api/save": studio.save,
        }
        if url.path not in routes:
            self._send_json(HTTPStatus.NOT_FOUND, {"ok": False, "error": f"no action {url.path}"})
            return
        self._answer(routes[url.path])

    # --- plumbing -------------------------------------------------------------------------
    def _authorized(self, query: dict[str, str]) -> bool:
        given = query.get("token") or self.headers.get("X-Studio-Token") or ""
        if secrets.compare_digest(given, self.server.token):
            return True
        self._send_json(HTTPStatus.FORBIDDEN, {"ok": False, "error": "this studio needs the token in its URL"})
        return False

    def _body(self) -> dict[str, Any] | None:
        given = self.headers.get("Content-Length") or "0"
        length = int(given) if given.isdigit() else -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self._send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {
                "ok": False, "error": f"a request body of 0 to {MAX_BODY_BYTES:,} bytes, with its Content-Length"})
            return None
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._send_json(HTTPStatus.BAD_REQUEST, {"ok": False, "error": "the request must be a JSON object"})
            return None
        return body

    def _answer(self, action) -> None:
        """Run `action`; a ZoosimError (a setting the CLI would refuse) is the page's one line,
    answered as {"ok": false, "error": LINE}."""
        try:
            result = action()
        except ZoosimError as error:  # an answer, not a failed request (browsers log those as errors)
            self._send_json(HTTPStatus.OK, {"ok": False, "error": str(error)})
            return
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            self._send_json(HTTPStatus.BAD_REQUEST, {"ok": False, "error": f"malformed request: {error}"})
            return
        except Exception as error:  # noqa: BLE001 - a bug: one line in the page, the server goes on
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR,
                            {"ok": False, "error": f"{type(error).__name__}: {error}"})
            return
        self._send_json(HTTPStatus.OK, {"ok": True, **(result if isinstance(result, dict) else {})})

    def _send_json(self, status: HTTPStatus, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data, allow_nan=False, default=_plain).encode("utf-8"), "application/json")

    def _send(self, status: HTTPStatus, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(payload)

    def _events(self) -> None:
        """The studio's state, sent when it changes and every EVENT_SECONDS while a run plays,
        until the tab closes (a write fails) or the server stops."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        studio, sent, quiet = self.server.studio, None, 0.0
        try:
            while not self.server.closing.is_set():
                state = studio.state()
                text = json.dumps(state, allow_nan=False, default=_plain)
                if text != sent:
                    self.wfile.write(f"data: {text}\n\n".encode("utf-8"))
                    sent, quiet = text, 0.0
                elif quiet >= KEEPALIVE_SECONDS:
                    self.wfile.write(b": alive\n\n")
                    quiet = 0.0
                self.wfile.flush()
                running = state["run"] is not None and state["run"]["status"] == "running"
                if running:
                    self.server.closing.wait(EVENT_SECONDS)
                else:
                    studio.wait_for_change(state["version"], EVENT_SECONDS * 4)
                quiet += EVENT_SECONDS
        except (BrokenPipeError, ConnectionResetError):
            pass  # the tab closed or reloaded
        self.close_connection = True


def _plain(value: Any) -> Any:
    """JSON for what json cannot write itself (NaN never reaches here: shares are None before a deal)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__}")


def serve(studio: Studio, port: int = DEFAULT_PORT, warm: dict[str, Any] | None = None,
          announce=lambda url: print(url, flush=True)) -> None:
    """Serve the studio until Ctrl-C (or SIGTERM), then stop it cleanly. `warm`: settings whose
    engine is loaded in the background at once."""
    try:
        server = StudioServer(studio, port)
    except OSError as error:
        raise ZoosimError(f"cannot listen on {HOST}:{port}: {error.strerror or error}; choose another --port") from None
    if warm is not None:
        threading.Thread(target=_warm_quietly, args=(studio, warm), daemon=True).start()
    announce(server.url)
    try:
        with terminate_on_sigterm():  # SIGTERM ends it as Ctrl-C does
            server.serve_forever(poll_interval=0.2)
    finally:
        server.closing.set()
        studio.close()
        server.server_close()


def _warm_quietly(studio: Studio, settings: dict[str, Any]) -> None:
    try:
        studio.warm(settings)
    except ZoosimError as error:  # the page shows the same line when it checks the settings
        print(f"zoosim studio: {error}", file=sys.stderr)



def run_studio(experiment: Path | None, out: Path, jobs: int, port: int = DEFAULT_PORT,
               announce=lambda url: print(url, flush=True)) -> None:
    """`zoosim studio`: a studio starting from EXPERIMENT's first study (default: the first
    registered game's defaults, a built-in game), with its seed and chunk size, so that saving
    replays the games `zoosim run` of the same setting would play."""
    if experiment is None:
        studio = Studio(out, jobs, default_settings(game_names()[0]))
    else:
        settings, model, weights = settings_from_experiment(experiment)
        studio = Studio(out, jobs, settings, seed=model.seed, chunk_games=model.chunk_games, weights=weights)
    serve(studio, port, warm=studio.start, announce=announce)

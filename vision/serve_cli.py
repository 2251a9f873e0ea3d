"""`mjlens serve`: run the refereeing web page and its JSON API under uvicorn."""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys

from scoring.cli import fail
from vision.argtypes import number, whole

HELP = "serve the refereeing web page and JSON API (photo -> score) over HTTP"
PROG = "mjlens serve"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default 127.0.0.1; use 0.0.0.0 to reach it from a phone)")
    parser.add_argument("--port", type=whole(0, 65535), default=8000,
                        help="TCP port (default 8000; 0: any free port, named when it starts)")
    parser.add_argument("--workers", type=whole(1), default=2, help="recognition threads (default 2)")
    parser.add_argument("--max-upload-mb", type=whole(1), default=20, help="largest accepted upload (default 20 MB)")
    parser.add_argument("--timeout", type=number(0), default=60.0,
                        help="seconds a request may wait and run before it is answered 408 (default 60)")
    parser.add_argument("--client-timeout", type=number(0), default=20.0,
                        help="seconds a client may take to send a request's headers, or pause an upload,"
                             " before it is disconnected (default 20)")


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound as uvicorn binds it (one address; `::` takes IPv4 too).

    Bound here rather than by uvicorn, which on failure logs its own error and exits with its own
    status before `run` could report it.
    """
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()  # from now on a request waits for the server instead of being refused
    except OSError:
        sock.close()
        raise
    return sock


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from vision.server import ServerSettings, create_app
        from vision.slow_clients import with_timeout
    except ImportError as exc:
        return fail(PROG, "web_extra_missing",
                    f"the web extra is not installed: pip install 'mahjong-lens[web]' ({exc})")
    settings = ServerSettings(
        max_upload_bytes=args.max_upload_mb * 1024 * 1024,
        request_timeout_s=args.timeout,
        workers=args.workers,
    )
    try:
        sock = _listen(args.host, args.port)
    except OSError as exc:  # port taken, address not on this machine, unknown host name
        return fail(PROG, "cannot_listen", f"cannot listen on {args.host}:{args.port}: {exc}")
    where = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address in a URL
    port = sock.getsockname()[1]  # the one chosen, for --port 0
    print(f"mjlens: open http://{where}:{port}/ (OpenAPI schema at /openapi.json); Ctrl-C stops", file=sys.stderr)
    config = uvicorn.Config(create_app(settings), http=with_timeout(args.client_timeout), log_level="warning")
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn shut down cleanly, then passed it on
        server.run(sockets=[sock])
    return 0

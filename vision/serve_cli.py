"""`mjlens serve`: run the refereeing web page and its JSON API under uvicorn."""

from __future__ import annotations

import argparse
import sys

HELP = "serve the refereeing web page and JSON API (photo -> score) over HTTP"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default 127.0.0.1; use 0.0.0.0 to reach it from a phone)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--workers", type=int, default=2, help="recognition threads (default 2)")
    parser.add_argument("--max-upload-mb", type=int, default=20, help="largest accepted upload (default 20 MB)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a request may wait and run before it is answered 408 (default 60)")


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from vision.server import ServerSettings, create_app
    except ImportError as exc:
        print(f"mjlens serve needs the web extra: pip install 'mahjong-lens[web]' ({exc})", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536 or args.workers < 1 or args.max_upload_mb < 1 or args.timeout <= 0:
        print("mjlens serve: --port must be 1-65535, --workers/--max-upload-mb >= 1, --timeout > 0", file=sys.stderr)
        return 2
    settings = ServerSettings(
        max_upload_bytes=args.max_upload_mb * 1024 * 1024,
        request_timeout_s=args.timeout,
        workers=args.workers,
    )
    print(f"mjlens: open http://{args.host}:{args.port}/ (OpenAPI schema at /openapi.json); Ctrl-C stops", file=sys.stderr)
    try:
        uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    except OSError as exc:  # port taken, address not available
        print(f"mjlens serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    return 0

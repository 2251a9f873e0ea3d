"""A real uvicorn server on a free local port, in a thread, for tests that need real sockets."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from vision.slow_clients import with_timeout


@contextlib.contextmanager
def serving(app, client_timeout_s: float = 20.0) -> Iterator[int]:
    """Run `app` as `mjlens serve` does (its protocol, with its slow-client limit); yields the port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, http=with_timeout(client_timeout_s), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start within 30 s")
        time.sleep(0.05)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

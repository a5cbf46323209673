"""The `serve` command: the web page (satnono.serve) on a local port."""

from __future__ import annotations

from typing import Annotated

import typer

from satnono.cli.process import handles_errors, say
from satnono.cli.shell import app


@app.command()
@handles_errors
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
    queue_wait: Annotated[
        float | None,
        typer.Option(
            "--queue-wait", min=0.1, max=3600, show_default=False,
            help="Seconds a request waits for a free run slot before 503 (server busy); 10 "
            "unless given.",
        ),
    ] = None,
    body_timeout: Annotated[
        float | None,
        typer.Option(
            "--body-timeout", min=0.1, max=3600, show_default=False,
            help="Seconds a request's body may take to arrive before 408; 10 unless given.",
        ),
    ] = None,
    send_stall: Annotated[
        float | None,
        typer.Option(
            "--send-stall", min=0.1, max=3600, show_default=False,
            help="Seconds an answer may wait on a client that reads none of it before the "
            "connection is cut; 10 unless given.",
        ),
    ] = None,
) -> None:  # fmt: skip
    """Start the web page: open, solve, watch and author puzzles in a browser."""
    from satnono.serve import serve as run_server

    announce = lambda url: say(f"satnono: serving on {url} (Ctrl-C stops)")  # noqa: E731
    run_server(host, port, open_browser, announce, queue_wait, body_timeout, send_stall)

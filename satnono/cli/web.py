"""The `serve` command: the web page (satnono.serve) on a local port."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from satnono.cli.process import handles_errors, say
from satnono.cli.shell import app


def _seconds(flag: str, what: str, default: int = 10) -> Any:
    """A limit in seconds the server has a default of its own for (0.1 s to an hour)."""
    return typer.Option(
        flag, min=0.1, max=3600, show_default=False,
        help=f"Seconds {what}; {default} unless given.",
    )  # fmt: skip


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
        _seconds("--queue-wait", "a request waits for a free run slot before 503 (server busy)"),
    ] = None,
    body_timeout: Annotated[
        float | None, _seconds("--body-timeout", "a request's body may take to arrive before 408")
    ] = None,
    send_stall: Annotated[
        float | None,
        _seconds(
            "--send-stall",
            "an answer may wait on a client that reads none of it before the connection is cut",
        ),
    ] = None,
    head_timeout: Annotated[
        float | None,
        _seconds(
            "--head-timeout",
            "a connection has to send a whole request head before it is closed",
            default=5,
        ),
    ] = None,
) -> None:  # fmt: skip
    """Start the web page: open, solve, watch and author puzzles in a browser."""
    from satnono.serve import serve as run_server

    announce = lambda url: say(f"satnono: serving on {url} (Ctrl-C stops)")  # noqa: E731
    run_server(
        host, port, open_browser, announce, queue_wait, body_timeout, send_stall, head_timeout
    )

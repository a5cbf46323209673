"""The command line's process plumbing, typer-free: exit codes, one-line errors, deadlines
from the start of the process, closed streams and a fast exit.

Exit codes: 0 at least one solution (or success), 1 proven no solution, 2 bad input or usage,
3 timeout before any solution, 4 internal error (a bug: please report it), 130 interrupted,
141 the reader of stdout went away. Commands end by raising SystemExit(code), which typer and
the fast path (quick.py) both pass through. No typer here: the fast path must not import it.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import satnono
from satnono.output import contract
from satnono.output.terminal import printable

EXIT_SOLVED, EXIT_UNSOLVABLE, EXIT_BAD_INPUT, EXIT_TIMEOUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it
#: Longest usage error message printed (a 5000-digit argument is not worth repeating).
MAX_MESSAGE = 300

#: The library names the parameter a bad argument came in; the CLI names its flag.
FLAGS = {
    "approximate": "--approx",
    "backend": "--backend",
    "colors": "--colors",
    "delta": "--delta",
    "encoding": "--encoding",
    "epsilon": "--epsilon",
    "format": "--format",
    "height": "--height",
    "host": "--host",
    "limit": "--limit",
    "max_solutions": "--max-solutions",
    "n": "-n",
    "port": "--port",
    "sampler": "--sampler",
    "seed": "--seed",
    "scheduler": "--scheduler",
    "show": "--show",
    "site": "fetch",
    "solver": "--solver",
    "threads": "--threads",
    "threshold": "--threshold",
    "timeout": "--timeout",
    "width": "--width",
    "workers": "--workers",
    "cubes": "--cubes",
}


F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int) -> SystemExit:
    """Say `message` on stderr; the exit to raise."""
    say(f"satnono: {printable(message)}")
    return SystemExit(code)


def flagged(error: satnono.InputError) -> satnono.InputError:
    """`error` naming the CLI's flag where it names the library's parameter (timeout ->
    --timeout), as every error line of the CLI does."""
    if error.path in FLAGS:
        error.path = FLAGS[error.path]
    if error.hint in FLAGS:
        error.hint = FLAGS[error.hint]
    return error


def handles_errors(command: F) -> F:
    """Map every failure to one line on stderr and its exit code; never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return command(*args, **kwargs)
            finally:
                flush_stream()  # however the command ends, no streamed line is left behind
        except satnono.InputError as error:
            raise fail(f"error: {flagged(error)}", EXIT_BAD_INPUT) from None
        except KeyboardInterrupt:
            raise fail("interrupted", EXIT_INTERRUPTED) from None
        except BrokenPipeError:
            # The reader went away (`satnono solve ... | head`): stop quietly, like other tools.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(EXIT_BROKEN_PIPE) from None
        except OSError as error:
            if error.errno not in _OUTPUT_ERRNOS:
                raise _internal(error) from None
            raise fail(output_error(error), EXIT_BAD_INPUT) from None
        except Exception as error:
            raise _internal(error) from None

    return wrapper  # type: ignore[return-value]


#: Errors of a stream that cannot take the output (a full disk, a closed or broken device):
#: the environment's fault, not satnono's, so exit 2 with one line rather than "internal error".
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT, errno.EFBIG}


def output_error(error: OSError) -> str:
    return f"error: cannot write the output: {error.strerror or error}"


def _internal(error: Exception) -> SystemExit:
    if os.environ.get("SATNONO_DEBUG"):
        raise error
    return fail(
        f"internal error: {type(error).__name__}: {error} (set SATNONO_DEBUG=1 for a "
        "traceback, and please report it)",
        EXIT_INTERNAL,
    )


#: When the console script started (start()), from which --timeout is counted; Python's
#: start-up before it takes a few hundredths of a second. None when the commands run
#: in-process (typer's test runner): each then counts from its own start.
_STARTED: float | None = None


def start() -> None:
    """Note the start of the process's work (the console script calls it first), and check
    its streams: a run with a closed stdout ends here with exit 2."""
    global _STARTED
    _STARTED = time.monotonic()
    _check_streams()


def deadline(timeout: float | None, first: bool = True) -> satnono.Deadline:
    """--timeout as a deadline counted from the start of the process (`first`) or from now,
    so that reading, downloading and analysis are all inside it."""
    satnono.check_options(timeout=timeout)
    return satnono.Deadline(timeout, _STARTED if first else None)


def load(
    path: Path,
    fmt: str | None,
    index: int,
    within: satnono.Deadline | None = None,
    json_for: str | None = None,
) -> satnono.Puzzle:
    """The puzzle, read (or downloaded) within the deadline (exit 3 when it passes; with
    --json, `json_for` names the command whose object says so)."""
    (puzzle,) = load_puzzles(path, fmt, index, within, json_for)
    return puzzle


def load_puzzles(
    path: Path,
    fmt: str | None,
    index: int | None,
    within: satnono.Deadline | None = None,
    json_for: str | None = None,
) -> list[satnono.Puzzle]:
    """Puzzle `index` of the file, or every puzzle in it when `index` is None; as `load`."""
    remaining = None if within is None else within.remaining()
    try:
        if index is None:
            return satnono.read_puzzles(path, fmt, remaining)
        return [satnono.read_puzzle(path, fmt, index, remaining)]
    except satnono.Timeout:
        raise _unread(path, json_for) from None


def _unread(path: Path, json_for: str | None) -> SystemExit:
    if json_for is not None:
        seconds = time.monotonic() - (_STARTED or time.monotonic())
        print_json(contract.unread_object(json_for, str(path), seconds))
        return SystemExit(EXIT_TIMEOUT)
    return fail(f"timeout: --timeout passed before {path} was read", EXIT_TIMEOUT)


@contextlib.contextmanager
def ctrl_c_cancels(within: satnono.Deadline) -> Iterator[threading.Event]:
    """While the body runs, a first Ctrl-C cancels `within`: the work stops with what it has
    (a count's lower bound, an analysis so far), which the command then reports before exit
    130. The event yielded is set once that happened. A second Ctrl-C interrupts at once."""
    pressed = threading.Event()
    if not _ctrl_c_heard():
        yield pressed
        return

    def cancel(*_: object) -> None:
        if pressed.is_set():
            raise KeyboardInterrupt
        pressed.set()
        within.cancel()

    previous = signal.signal(signal.SIGINT, cancel)
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_once(taken: bool = False) -> Iterator[None]:
    """Around a command that stops at a Ctrl-C and reports what it had (the grid so far, the
    steps, the runs finished): the first press raises KeyboardInterrupt as ever; the next is
    let pass until the block ends, and a third ends the process at once (exit 130), should
    stopping the work or the report itself hang (a stalled pipe). A second press used to
    cut the report off, mid-grid or, landing while the search was still being stopped, before
    it began: neither the grid nor the status line. `taken`: the first press was already
    taken (it cancelled a count, `ctrl_c_cancels`), the block is the report."""
    if not _ctrl_c_heard():
        yield
        return
    previous = signal.signal(signal.SIGINT, _presses(1 if taken else 0))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _presses(taken: int) -> Callable[..., None]:
    """A SIGINT handler counting presses after `taken` of them: the first raises
    KeyboardInterrupt, the second is let pass, the third ends the process at once (exit 130)."""
    presses = taken

    def pressed(*_: object) -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            raise KeyboardInterrupt
        if presses >= 3:
            os._exit(EXIT_INTERRUPTED)

    return pressed


def _ctrl_c_heard() -> bool:
    """Whether this thread may take Ctrl-C over: the main thread (the only one Python lets set
    a handler), in a process that does not ignore it (a script's background job, `nohup`:
    it stays ignored, as the shell meant)."""
    main = threading.current_thread() is threading.main_thread()
    return main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def reporting(interrupted: bool) -> contextlib.AbstractContextManager[None]:
    """While a command cancelled by a first Ctrl-C reports what it had (`ctrl_c_cancels`):
    `ctrl_c_once` with that press taken; nothing changes when it was not `interrupted`."""
    return ctrl_c_once(taken=True) if interrupted else contextlib.nullcontext()


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    made = Console(stderr=stderr, highlight=False)
    # rich exits 1 on a closed pipe; let handles_errors give the usual 141 instead.
    made.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]
    return made


#: The longest a streamed line waits in the buffer: a flush per line is a system call, a fifth
#: of a 100,000-solution stream's time (tools: `solve --max-solutions 0 --json-lines`).
FLUSH_EVERY = 0.05
#: Lines of a stream handed to stdout in one write: where Python's stdout is unbuffered
#: (PYTHONUNBUFFERED=1, as in many containers and on the machines this was measured on) each
#: write is a system call, and one per line took a third of a 100,000-solution stream's time.
WRITE_LINES = 128
_stdout_lock = threading.Lock()
_pending: list[str] = []
_unflushed = False
_flusher: threading.Thread | None = None


def print_json(data: Any) -> None:
    """One JSON object on one line of stdout, flushed (with any streamed line before it),
    written in pieces (a listing's solutions are never copied whole: `contract.json_pieces`)."""
    global _unflushed
    with _stdout_lock:
        _write_pending()
        for piece in contract.json_pieces(data):
            sys.stdout.write(piece)
        sys.stdout.write("\n")
        sys.stdout.flush()
        _unflushed = False


def stream_line(line: str) -> None:
    """One line of a stream (`--json-lines`, one JSON object): written with the next
    WRITE_LINES, and flushed within FLUSH_EVERY by a thread of its own whatever the producer
    does next (a long search for the next solution leaves nothing stale), at once by the next
    print_json, and at the end of the command whatever ends it (`handles_errors`)."""
    global _unflushed, _flusher
    with _stdout_lock:
        _pending.append(line)
        if len(_pending) >= WRITE_LINES:
            _write_pending()
        _unflushed = True
        if _flusher is None:
            _flusher = threading.Thread(target=_flush_streamed, name="satnono stdout", daemon=True)
            _flusher.start()


def _write_pending() -> None:
    """Hand the lines gathered to stdout (the caller holds _stdout_lock)."""
    if _pending:
        text = "\n".join(_pending) + "\n"
        _pending.clear()
        sys.stdout.write(text)


def flush_stream() -> bool:
    """Write and flush what a stream has gathered; False once stdout cannot take it (a closed
    reader: the main thread's next write meets it, exit 141)."""
    global _unflushed
    with _stdout_lock:
        if _unflushed:
            _unflushed = False
            try:
                _write_pending()
                sys.stdout.flush()
            except (OSError, ValueError):
                _pending.clear()
                return False
    return True


def _flush_streamed() -> None:
    while True:
        time.sleep(FLUSH_EVERY)
        if not flush_stream():
            return


def _raise_broken_pipe() -> None:
    raise BrokenPipeError


def exit_code(status: str, found: int) -> int:
    if found:
        return EXIT_SOLVED
    if status == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_TIMEOUT if status == "timeout" else EXIT_UNSOLVABLE


def _check_streams() -> None:
    """A closed stderr is replaced by /dev/null (nothing can be said there, the work goes
    on); a closed stdout ends the run at once with exit 2: the result would go nowhere."""
    if not _open(2):
        _reopen_devnull(2)
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - the process's stderr
    if not _open(1):
        # fd 1 must not be left free for the next file opened, which would then take it.
        _reopen_devnull(1)
        say("satnono: error: standard output is closed: nowhere to write the result")
        os._exit(EXIT_BAD_INPUT)


def identity(fd: int) -> tuple[int, int]:
    """What `fd` is open on (device, inode): to see whether a library replaced it."""
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _reopen_devnull(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    if devnull != fd:
        os.dup2(devnull, fd)
        os.close(devnull)


def say(line: str) -> None:
    """One line on stderr, whatever state stderr is in."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _ctrl_c_while_exiting() -> None:
    """While the CLI exits, a Ctrl-C lets its output finish, and a second ends the process at
    once (exit 130), should the flush hang. A press landing here used to raise
    KeyboardInterrupt out of the exit: Python then ends by SIGINT (exit -2), and the output
    still buffered is lost."""
    if _ctrl_c_heard():
        signal.signal(signal.SIGINT, _presses(1))  # as the report of an interrupted command


def exit_now(code: object) -> NoReturn:
    """Exit without Python's shutdown, once exit handlers ran and output is flushed.

    The shutdown frees every object and module one by one: 30 to 50 ms of each run, a fifth
    of a line-solvable puzzle's whole process, with nothing left to do that the operating
    system does not do at exit. Only the console script does this, never the library.
    """
    import atexit

    _ctrl_c_while_exiting()
    if isinstance(code, str):  # sys.exit("message"): Python prints it and exits 1
        sys.stderr.write(code + "\n")
        code = 1
    status = code if isinstance(code, int) else 0 if code is None else 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: nothing more can be said there
        status = status or EXIT_BROKEN_PIPE
    except (OSError, ValueError) as error:  # a full disk, a device that refuses the output
        say(f"satnono: {output_error(error) if isinstance(error, OSError) else error}")
        status = status or EXIT_BAD_INPUT
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)

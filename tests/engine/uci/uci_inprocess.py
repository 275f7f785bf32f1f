"""The UCI engine in-process, as the UCI tests drive it: commands through ``handle`` (or a byte
stream through ``run``), its output collected line by line as the worker thread writes it, and
every wait bounded by a hang guard (GUARD_S unless said otherwise: far above the milliseconds
an answer takes on an idle machine; only a hung engine reaches it)."""

import threading
import time

import chess

from posdata.engine.uci.protocol import UciEngine
from tests.hang_guard import guarded

#: the hang guard of a wait for a line or a command's answer. Idle, a line the engine owes at
#: once (readyok, the bestmove after stop) comes within milliseconds, a search's within its limit
#: (these tests give at most a few hundred ms): 10 s is well over ten times either.
GUARD_S = 10.0


class Output:
    """A file the engine writes to from two threads; ``lines`` so far, and a wait for more."""

    def __init__(self):
        self.lines: list[str] = []
        self.partial = ""
        self.changed = threading.Condition()

    def write(self, text: str) -> int:
        with self.changed:
            *done, self.partial = (self.partial + text).split("\n")
            self.lines.extend(done)
            self.changed.notify_all()
        return len(text)

    def flush(self) -> None:
        pass


class Engine:
    """``expect`` waits for the next line (after those already expected) starting with a
    prefix, and returns it with the seconds it took. ``close`` must be called at the end."""

    def __init__(self, movegens=None, leaves=None):
        self.out = Output()
        self.engine = UciEngine(out=self.out, movegens=movegens, leaves=leaves)
        self.seen = 0

    @property
    def lines(self) -> list[str]:
        with self.out.changed:
            return list(self.out.lines)

    def say(self, *lines: str) -> None:
        for line in lines:
            self.engine.handle(line)

    def expect(self, prefix, timeout: float = GUARD_S) -> tuple[str, float]:
        """``prefix``: a string, or a test of the line. ``timeout`` is a hang guard."""
        test = prefix if callable(prefix) else (lambda line: line.startswith(prefix))
        start = time.monotonic()
        with self.out.changed:
            while True:
                for i in range(self.seen, len(self.out.lines)):
                    if test(self.out.lines[i]):
                        self.seen = i + 1
                        return self.out.lines[i], time.monotonic() - start
                self.seen = len(self.out.lines)
                left = start + timeout - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {prefix!r} within {timeout} s: {self.out.lines}")
                self.out.changed.wait(left)

    def no_line(self, prefix: str, wait: float) -> None:
        """Nothing starting with ``prefix`` within ``wait`` seconds: what must not happen, looked
        for that long (a busy machine can only make a wrong line later, never a right one
        wrong)."""
        time.sleep(wait)
        assert not any(line.startswith(prefix) for line in self.lines[self.seen:]), self.lines

    def timed(self, line: str, guard: float = GUARD_S) -> float:
        """``line`` handled as ``say`` does, under a hang guard; the seconds it took. isready,
        stop and ponderhit are answered before ``handle`` returns (a stop waits for the worker
        to end, bestmove printed), so this is how long the engine took to answer them."""
        start = time.monotonic()
        guarded(lambda: self.engine.handle(line), guard, f"the engine handling {line!r}")
        return time.monotonic() - start

    def ready(self, within: float = 1.0) -> None:
        """isready is answered within ``within`` seconds, whatever runs. Idle it takes well
        under a millisecond during a search or a perft; an engine that waited for the work
        would take seconds, or hang on ``go infinite`` (the guard)."""
        seconds = self.timed("isready")
        self.expect("readyok")
        assert seconds < within, f"readyok after {seconds:.2f} s"

    def fen(self) -> str:
        assert self.engine.wait(timeout=GUARD_S)  # a hang guard
        self.say("d")
        return self.expect("Fen: ")[0].removeprefix("Fen: ")

    def close(self, failures_expected: bool = False) -> None:
        """Stop the worker; it must end, and (unless expected) no internal error was reported."""
        self.engine.stop_search(timeout=GUARD_S)  # a hang guard: a stop takes milliseconds
        assert not self.engine.searching(), "the worker did not end"
        internal = [line for line in self.lines if line.startswith(
            ("info string error in", "info string search failed", "info string perft failed"))]
        assert failures_expected or not internal, internal


def legal_in(fen: str, move: str, chess960: bool = False) -> bool:
    """python-chess's word: is ``move`` (UCI, in the board's notation) legal at ``fen``? ``0000``
    is, where there is no legal move."""
    board = chess.Board(fen, chess960=chess960)
    legal = {board.uci(m) for m in board.legal_moves}
    return move in legal if move != "0000" else not legal

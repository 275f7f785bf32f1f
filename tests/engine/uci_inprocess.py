"""The UCI engine in-process, as the UCI tests drive it: commands through ``handle`` (or a byte
stream through ``run``), its output collected line by line as the worker thread writes it, and
every wait bounded."""

import threading
import time

import chess

from posdata.engine.uci import UciEngine


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

    def expect(self, prefix, timeout: float = 10.0) -> tuple[str, float]:
        """``prefix``: a string, or a test of the line."""
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
        time.sleep(wait)
        assert not any(line.startswith(prefix) for line in self.lines[self.seen:]), self.lines

    def ready(self, within: float = 1.0) -> None:
        """isready is answered within ``within`` seconds, whatever runs."""
        self.say("isready")
        _, seconds = self.expect("readyok", timeout=10)
        assert seconds < within, f"readyok after {seconds:.2f} s"

    def fen(self) -> str:
        assert self.engine.wait(timeout=10)
        self.say("d")
        return self.expect("info string fen ")[0].removeprefix("info string fen ")

    def close(self, failures_expected: bool = False) -> None:
        """Stop the worker; it must end, and (unless expected) no internal error was reported."""
        self.engine.stop_search(timeout=5)
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

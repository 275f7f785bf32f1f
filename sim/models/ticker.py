"""A long step's elapsed time on stderr (a model compile, a synthesis phase): one line that
rewrites itself each second while the step runs, then ``LABEL: 12.3 s`` when it ends. Only when
stderr is a terminal and not ``quiet`` (a log or --json gets nothing from it), as
sim.cli.common.Progress."""

import sys
import threading
import time


class Ticker:
    def __init__(self, quiet: bool = False, interval: float = 1.0, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.interval = interval
        self.label = None
        self.note_text = None  #: what the step says of its progress, shown after its time
        self.start = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    def step(self, label: str) -> None:
        """End the step running (its time on a line of its own) and start ``label``."""
        with self._lock:
            self._finish()
            self.label, self.start, self.note_text = label, time.monotonic(), None
            self._show()
        if self.enabled and self._thread is None:
            self._stop.clear()  # a ticker may run again after done()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()

    def note(self, text: str) -> None:
        """What the step under way says of its progress (nextpnr's iteration), on its line."""
        with self._lock:
            self.note_text = text
            self._show()

    def done(self) -> None:
        with self._lock:
            self._finish()
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.done()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                self._show()

    def _show(self) -> None:
        if self.enabled and self.label is not None:
            seconds = time.monotonic() - self.start
            note = f": {self.note_text}" if self.note_text else ""
            self.stream.write(f"\r\x1b[K{self.label} ... {seconds:.0f} s{note}")
            self.stream.flush()

    def _finish(self) -> None:
        if self.enabled and self.label is not None:
            seconds = time.monotonic() - self.start
            self.stream.write(f"\r\x1b[K{self.label}: {seconds:.1f} s\n")
            self.stream.flush()
        self.label = None

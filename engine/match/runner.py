"""A match: N games between two engines, ``concurrency`` at a time, each opening of the book
played twice with the colours swapped, stopped early by an SPRT decision when one is asked for.

Game i starts from book line i // 2 (the book read again from its start when the games
outnumber twice its lines) with the first engine white when i is even. Each of ``concurrency``
threads keeps its own pair of engine processes for all its games (``ucinewgame`` between them)
and takes the next game when it is done with one. An engine that stalled or crashed is stopped
and started again before that thread's next game. The first pair is started before any game,
so a bad command or option is known at once (a MatchError); another thread whose pair does not
start leaves the games to the others (a note), and an engine that cannot be restarted ends the
match early, the games so far kept (``stopped`` says why).

The results come back to the calling thread, which hands each finished game to ``on_game`` in
the order they end and checks the SPRT: when it decides, the games still running are abandoned
(not counted) and the match ends. A KeyboardInterrupt in the calling thread stops every engine
before it goes on up.
"""

import queue
import threading
import time
from dataclasses import dataclass

from .book import Opening
from .game import CRASHED, STALLED, GameRecord, Player, play_game
from .spec import EngineSpec
from .sprt import Sprt
from .uci_client import POLL_S, Aborted, EngineStartError, UciClient


class MatchError(Exception):
    """The match cannot go on (an engine that does not start): one line."""


@dataclass
class MatchConfig:
    engines: tuple[EngineSpec, EngineSpec]
    book: list[Opening]
    games: int
    ply_cap: int
    posdata_uci: list[str]  #: the command line of posdata's UCI engine (``backend=`` engines)
    concurrency: int = 1
    sprt: Sprt | None = None


class Match:
    """``on_game(record, match)`` is called for each game counted; ``on_note(text)`` for what
    an engine says while it is set up."""

    def __init__(self, config: MatchConfig, on_game=None, on_note=None):
        self.config = config
        self.on_game = on_game or (lambda record, match: None)
        self.on_note = on_note or (lambda text: None)
        self.names: tuple[str, str] = ("", "")
        self.records: list[GameRecord] = []  #: the games counted, in the order they ended
        self.decision: str | None = None  #: the SPRT's: sprt.H0 or sprt.H1
        self.stopped: str | None = None  #: why the match ended early, but for the SPRT
        self.started = 0  #: games begun
        self.seconds = 0.0
        self.abort = threading.Event()
        self._lock = threading.Lock()
        self._results: queue.Queue = queue.Queue()

    # --- the schedule ----------------------------------------------------------------------

    def opening(self, index: int) -> Opening:
        book = self.config.book
        return book[(index // 2) % len(book)]

    def tally(self) -> tuple[int, int, int]:
        """The first engine's wins, draws and losses so far."""
        points = [r.points(self.names[0]) for r in self.records]
        return points.count(1.0), points.count(0.5), points.count(0.0)

    @property
    def abandoned(self) -> int:
        """Games begun but not counted (running when the SPRT decided)."""
        return self.started - len(self.records)

    def _next(self) -> int | None:
        with self._lock:
            if self.abort.is_set() or self.started >= self.config.games:
                return None
            self.started += 1
            return self.started - 1

    # --- engines ---------------------------------------------------------------------------

    def _start(self, k: int) -> UciClient:
        spec = self.config.engines[k]
        label = f"engine {k + 1}" + (f" ({self.names[k]})" if self.names[k] else "")
        client = UciClient(spec.command(self.config.posdata_uci), spec.dir, label)
        client.start()
        try:
            said = client.handshake(spec.uci_options(), self.abort)
            if said and spec.backend is not None:  # posdata answers a refused option so
                raise EngineStartError(f"{label} refused its options: {said[0]}")
            for text in said:
                self.on_note(f"{label} says: {text}")
        except BaseException:
            client.close()
            raise
        return client

    def _name(self, k: int, client: UciClient) -> str:
        spec = self.config.engines[k]
        if spec.name:
            return spec.name
        if spec.backend is None and client.id_name:
            return client.id_name
        return spec.default_name()

    # --- the games -------------------------------------------------------------------------

    def _worker(self, pair: list) -> None:
        try:
            try:
                for k in (0, 1):
                    if pair[k] is None:
                        pair[k] = self._start(k)
            except EngineStartError as e:  # the other threads play on
                self._results.put(("note", f"{e}; one game fewer at once"))
                return
            while (index := self._next()) is not None:
                players = [Player(self.names[k], self.config.engines[k], pair[k])
                           for k in (0, 1)]
                white, black = players if index % 2 == 0 else players[::-1]
                record = play_game(index, self.opening(index), white, black,
                                   self.config.ply_cap, self.abort)
                self._results.put(("game", record))
                if record.reason in (STALLED, CRASHED):
                    k = self.names.index(record.loser)
                    pair[k].close()
                    pair[k] = None
                    pair[k] = self._start(k)
        except Aborted:
            pass
        except EngineStartError as e:
            self._results.put(("stopped", str(e)))
        except BaseException as e:  # noqa: BLE001  (a fault of ours: raised in the caller's thread)
            self._results.put(("error", e))
        finally:
            for client in pair:
                if client is not None:
                    client.close()
            self._results.put(("done", None))

    def run(self) -> "Match":
        config = self.config
        start = time.monotonic()
        first: list = [None, None]
        try:
            for k in (0, 1):
                first[k] = self._start(k)
        except BaseException as e:
            for client in first:
                if client is not None:
                    client.close()
            if isinstance(e, EngineStartError):
                raise MatchError(str(e)) from None
            raise
        names = [self._name(k, first[k]) for k in (0, 1)]
        if names[0] == names[1]:
            names[1] += " (2)"
        self.names = tuple(names)
        for k in (0, 1):
            first[k].label = f"engine {k + 1} ({names[k]})"
        workers = [threading.Thread(target=self._worker, args=(first if n == 0 else [None, None],),
                                    name=f"match-{n}", daemon=True)
                   for n in range(min(config.concurrency, config.games))]
        error = None
        try:
            for worker in workers:
                worker.start()
            running = len(workers)
            while running:
                try:
                    kind, item = self._results.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                if kind == "done":
                    running -= 1
                elif kind == "error":
                    error = error or item
                    self.abort.set()
                elif kind == "note":
                    self.on_note(item)
                elif kind == "stopped":
                    self.stopped = self.stopped or item
                    self.abort.set()
                elif not self.abort.is_set():
                    self._count(item)
        finally:
            self.abort.set()
            for worker in workers:
                worker.join()
            self.seconds = time.monotonic() - start
        if error is not None:
            raise error
        return self

    def _count(self, record: GameRecord) -> None:
        self.records.append(record)
        if self.config.sprt is not None:
            self.decision = self.config.sprt.decision(*self.tally())
        self.on_game(record, self)
        if self.decision is not None:
            self.abort.set()

"""The UCI protocol: what lets a chess GUI (or python-chess's ``chess.engine``) drive the search.

The main thread reads commands; long work (a search, ``go perft``) runs on a worker thread, so
``stop``, ``isready``, ``quit`` and the end of input are answered while it runs: a stop is
noticed within a few hundred nodes (or one generation on the gateware), and ``quit`` or the end
of input ends the process without waiting for a count to finish. The worker prints the ``info``
lines and the ``bestmove``: every ``go`` (but ``go perft``) ends in exactly one ``bestmove``, a
legal move or ``0000`` when there is none, whatever its numbers (engine.uci.go checks them).
Nothing the GUI sends may crash the engine: unknown commands and bad values are answered with
``info string <what was wrong>`` and otherwise ignored, and any internal error in a command or
in the search is reported the same way (a search that fails still answers with a legal
``bestmove``). Input lines are read up to MAX_LINE_BYTES (a longer one is skipped whole), and
bytes that are not UTF-8 are replaced.

Supported: uci, isready, ucinewgame, position startpos|fen ... [moves ...], go (depth, movetime,
wtime/btime/winc/binc/movestogo, nodes, mate, infinite, ponder, searchmoves, perft), stop,
ponderhit, quit, setoption, debug and register (accepted, ignored), and ``d`` (not UCI: draws
the board, its FEN, hash and checkers as Stockfish does, for people typing at the engine).

Options: Backend (``tscp``: the TSCP-style search, engine.search.searcher; ``gen``: the same on the
gateware generator; ``sw``: the host's search over the chip's search as the reference runs it,
engine.search.host_think; ``hw``: the same over the search thread, where the engine was given one),
ChipDepth (the plies below which ``sw``/``hw`` hand a node to the leaf searcher), UCI_Variant (a
combo of the variants of ``engine.rules.variants``, Fairy-Stockfish's names accepted too:
``fischerandom`` is ``chess960``) and UCI_Chess960 (a check, as Fairy-Stockfish offers them).
MoveGen, the older name of Backend tscp (sw) and gen (hw), is no longer offered; setting it
still works and says so. With UCI_Chess960 on,
chess is played as Chess960 (Shredder-FEN or X-FEN castling rights), and castling is written as
the king taking its own rook (``e1h1``) in every variant; the chess960 variant always writes it
so. A generator or Backend that cannot play a variant (engine.rules.capabilities: the search on the
gateware, the chip's search) is refused for it with an info string.
"""

import os
import sys
import threading

from ..rules import movegen as reference_movegen
from ..rules.board import Board
from ..rules.capabilities import refusal
from ..rules.diagram import diagram
from ..rules.variants import BY_NAME, CHESS, VARIANTS, VariantError, get_variant
from ..search.host_search import DEFAULT_CHIP_DEPTH, ReferenceLeaf
from ..search.host_think import HostThinker
from ..search.leaf_search import MAX_JOB_DEPTH
from ..search.searcher import Limits, MoveGenUnavailable, Searcher, pv_uci, uci_score
from .go import (
    FALLBACK_MOVETIME_MS,
    MAX_PROBLEMS,
    MOVE_OVERHEAD_MS,  # noqa: F401  (the engine's figures, read by its tests)
    clipped,
    limits_for,
    parse_go,
    parse_int,
    ponderhit_ms,
    shown,
)
from .go_perft import go_perft
from .input_lines import MAX_LINE_BYTES, TOO_LONG, read_line

ENGINE_NAME = "posdata"
ENGINE_AUTHOR = "the posdata developers"

#: the deepest `go perft` (deeper counts take hours in Python)
MAX_PERFT_DEPTH = 12
#: the longest info string (it may echo what the GUI sent)
MAX_INFO_CHARS = 400
#: on quit or the end of input, how long the worker is given to end before the engine leaves
QUIT_WAIT_S = 0.5

#: the generators of a bare engine (``python -m posdata.engine``): name -> factory. The
#: ``posdata uci`` command adds the gateware's (posdata.sim.drivers.movegens).
SOFTWARE_MOVEGENS = {"sw": lambda: reference_movegen}
#: the leaf searchers of a bare engine, by Backend value; ``posdata uci`` adds the chip's (hw)
SOFTWARE_LEAVES = {"sw": ReferenceLeaf}
#: the values UCI_Variant offers: ours, then Fairy-Stockfish's other spellings
VARIANT_CHOICES = tuple(v.name for v in VARIANTS) + tuple(
    v.fsf_name for v in VARIANTS if v.fsf_name != v.name)


def variant_refusal(movegen, variant) -> str | None:
    """Why this move generator cannot play ``variant``, or None. A generator declares that it
    plays every variant with ``SUPPORTS_VARIANTS`` (the reference does); any other is the
    search's gateware generator (engine.rules.capabilities' ``search-gen``)."""
    if getattr(movegen, "SUPPORTS_VARIANTS", False):
        return None
    return refusal(variant, "search-gen")


class UciEngine:
    """``movegens`` maps the values of the MoveGen option to factories of move generators
    (objects with ``gen``/``gen_caps``, see engine.search.searcher); a factory may raise
    MoveGenUnavailable. The first is the default. ``leaves`` maps the Backend values of the
    chip's search to factories of leaf searchers (engine.search.host_search.LeafSearcher)."""

    def __init__(self, out=None, movegens=None, leaves=None):
        self.out = out if out is not None else sys.stdout
        self.out_lock = threading.Lock()
        self.output_lost = False  #: the GUI closed our output: nothing more to say
        self.variant_choice = CHESS  #: UCI_Variant
        self.search_board = None  #: the board of the running search (its notation)
        self.chess960 = False  #: UCI_Chess960
        self.board = self.new_board()
        self.movegens = dict(movegens or SOFTWARE_MOVEGENS)
        self.movegen_name = next(iter(self.movegens))
        self.movegen = self.movegens[self.movegen_name]()
        self.leaves = dict(SOFTWARE_LEAVES if leaves is None else leaves)
        self.leaf_made: dict = {}  #: the leaf searchers made so far (a model is made once)
        self.backend = "tscp"  #: Backend: tscp or gen (engine.search.searcher), or a key of leaves
        self.chip_depth = DEFAULT_CHIP_DEPTH  #: ChipDepth
        # The worker: one search or perft at a time, on self.board (the command thread leaves
        # the board alone until the worker has ended: every command that changes it stops it).
        self.thread: threading.Thread | None = None
        self.searcher: Searcher | HostThinker | None = None
        self.search_limits: Limits | None = None
        self.perft_stop = threading.Event()
        self.release = threading.Event()  # an infinite/ponder search may print its bestmove
        self.pondering = False  #: the search is a go ponder that no ponderhit has turned
        self.ponder_ms: float | None = None  #: how long it goes on after ponderhit
        self.ponder_timer: threading.Timer | None = None
        self.commands = {
            "uci": self.cmd_uci, "isready": self.cmd_isready, "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position, "go": self.cmd_go, "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit, "setoption": self.cmd_setoption,
            "debug": self.cmd_ignore, "register": self.cmd_ignore, "d": self.cmd_d,
        }

    # --- input and output ------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self.out_lock:
            if self.output_lost:
                return
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):  # a broken pipe, or a closed file: the GUI has gone
                self.output_lost = True

    def info_string(self, text: str) -> None:
        # One printable line, whatever the text: it may echo bytes the GUI sent us.
        text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(text.split()))
        if len(text) > MAX_INFO_CHARS:
            text = text[:MAX_INFO_CHARS - 3] + "..."
        self.send("info string " + text)

    def run(self, stream) -> None:
        """Read commands until ``quit``, the end of input or a lost output. ``stream`` yields
        bytes (stdin's buffer: bytes that are not UTF-8 must not kill the engine) or str
        lines. On the way out a running search or perft is stopped, and given QUIT_WAIT_S to
        end (its thread is a daemon: it does not hold the process)."""
        try:
            while not self.output_lost:
                line = read_line(stream)
                if line is None:
                    break
                if line is TOO_LONG:
                    self.info_string(f"a line of more than {MAX_LINE_BYTES} bytes; ignored")
                    continue
                if not self.handle(line):
                    break
        finally:
            self.stop_search(timeout=QUIT_WAIT_S)

    def handle(self, line: str) -> bool:
        """One command line; False when the engine should quit."""
        tokens = line.split()
        # UCI: an unknown token is skipped and the rest of the line parsed ("joho debug on").
        for i, token in enumerate(tokens):
            if token == "quit":
                return False
            command = self.commands.get(token)
            if command is not None:
                try:
                    command(tokens[i + 1:])
                except Exception as e:  # noqa: BLE001  (whatever it was, the engine lives on)
                    self.info_string(f"error in {token}: {type(e).__name__}: {e}")
                return True
        if tokens:
            self.info_string(f"unknown command: {line.strip()[:200]}")
        return True

    # --- variants --------------------------------------------------------------------------

    @property
    def variant(self):
        """What is played: UCI_Variant, except that chess with UCI_Chess960 is Chess960."""
        if self.chess960 and self.variant_choice is CHESS:
            return BY_NAME["chess960"]
        return self.variant_choice

    def new_board(self, fen: str | None = None) -> Board:
        board = Board(fen, self.variant)
        board.chess960_notation = self.chess960 or self.variant.chess960
        return board

    # --- commands --------------------------------------------------------------------------

    def cmd_uci(self, args) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send(f"option name Backend type combo default tscp "
                  f"{' '.join('var ' + n for n in self.backends())}")
        self.send(f"option name ChipDepth type spin default {DEFAULT_CHIP_DEPTH} min 0 "
                  f"max {MAX_JOB_DEPTH}")
        self.send(f"option name UCI_Variant type combo default {CHESS.name} "
                  f"{' '.join('var ' + n for n in VARIANT_CHOICES)}")
        self.send("option name UCI_Chess960 type check default false")
        self.send("uciok")

    def cmd_isready(self, args) -> None:
        self.send("readyok")

    def cmd_ignore(self, args) -> None:
        pass

    def cmd_d(self, args) -> None:
        """The board as Stockfish draws it, its FEN, hash and checkers (a debugging aid: not
        UCI, which GUIs do not send)."""
        if self.searching():
            self.info_string("searching; the position is shown after the search")
        else:
            for line in diagram(self.board):
                self.send(line)

    def cmd_ucinewgame(self, args) -> None:
        self.stop_search()
        self.board = self.new_board()

    def cmd_setoption(self, args) -> None:
        # setoption name <id, may contain spaces> [value <x>]
        if not args or args[0] != "name":
            self.info_string("setoption: expected 'setoption name <id> [value <x>]'")
            return
        rest = args[1:]
        if "value" in rest:
            k = rest.index("value")
            name, value = " ".join(rest[:k]), " ".join(rest[k + 1:])
        else:
            name, value = " ".join(rest), ""
        setter = {"movegen": self._set_movegen_older, "uci_variant": self._set_variant,
                  "uci_chess960": self._set_chess960, "backend": self._set_backend,
                  "chipdepth": self._set_chip_depth}.get(name.lower())
        if setter is None:
            self.info_string(f"setoption: no option named {shown(name, 60)}")
            return
        setter(value.strip())

    def _set_movegen_older(self, value: str) -> None:
        """MoveGen, the older name of Backend tscp and gen: no longer offered, still obeyed,
        with a word on what to say instead."""
        self.info_string("setoption: MoveGen is the older name of Backend (MoveGen sw is "
                         "Backend tscp, MoveGen hw is Backend gen, the move generator)")
        self._set_movegen(value)

    def _set_movegen(self, value: str) -> None:
        value = value.lower()
        if value not in self.movegens:
            self.info_string(f"setoption: MoveGen must be one of {', '.join(self.movegens)}, "
                             f"not {shown(value)}")
            return
        self.stop_search()
        backend = "gen" if value == "hw" else "tscp"
        try:
            movegen = self.movegens[value]()
        except MoveGenUnavailable as e:
            self.info_string(f"{e}; Backend stays {self.backend}")
            return
        refused = variant_refusal(movegen, self.variant)
        if refused:
            self.info_string(f"Backend {backend} does not play {self.variant.name}: {refused}; "
                             f"Backend stays {self.backend}")
            return
        self.movegen, self.movegen_name = movegen, value
        self.backend = backend

    # --- the chip's search -----------------------------------------------------------------

    def backends(self) -> list[str]:
        """Backend's values: the TSCP-style search (on the gateware generator too, where the
        engine has it), then the chip's search over each leaf searcher."""
        return ["tscp", *(["gen"] if "hw" in self.movegens else []), *self.leaves]

    def _set_backend(self, value: str) -> None:
        value = value.lower()
        if value not in self.backends():
            self.info_string(f"setoption: Backend must be one of {', '.join(self.backends())}, "
                             f"not {shown(value)}")
            return
        if value in ("tscp", "gen"):
            self._set_movegen("hw" if value == "gen" else next(iter(self.movegens)))
            return
        self.stop_search()
        refused = refusal(self.variant, "search", f"Backend {value} (the chip's search)")
        if refused:
            self.info_string(f"{refused}; Backend stays {self.backend}")
            return
        if value not in self.leaf_made:
            try:
                self.leaf_made[value] = self.leaves[value]()
            except Exception as e:  # noqa: BLE001  (no compiler, a failed build: say it, go on)
                self.info_string(f"Backend {value} unavailable: {type(e).__name__}: {e}; "
                                 f"Backend stays {self.backend}")
                return
        self.backend = value

    def _set_chip_depth(self, value: str) -> None:
        try:
            depth = parse_int(value)
        except ValueError:
            depth = None
        if depth is None or not 0 <= depth <= MAX_JOB_DEPTH:
            self.info_string(f"setoption: ChipDepth must be an integer from 0 to "
                             f"{MAX_JOB_DEPTH}, not {shown(value)}")
            return
        self.stop_search()
        self.chip_depth = depth

    def _set_variant(self, value: str) -> None:
        try:
            variant = get_variant(value.lower())
        except VariantError as e:
            self.info_string(f"setoption: UCI_Variant: {e}")
            return
        self._change_variants(variant, self.chess960, f"UCI_Variant {variant.name}")

    def _set_chess960(self, value: str) -> None:
        if value.lower() not in ("true", "false"):
            self.info_string(f"setoption: UCI_Chess960 must be true or false, not {shown(value)}")
            return
        self._change_variants(self.variant_choice, value.lower() == "true",
                              f"UCI_Chess960 {value.lower()}")

    def _change_variants(self, choice, chess960: bool, what: str) -> None:
        self.stop_search()
        old = (self.variant_choice, self.chess960)
        self.variant_choice, self.chess960 = choice, chess960
        refused = variant_refusal(self.movegen, self.variant)
        if refused:
            refused = f"Backend {self.backend} does not play {self.variant.name}: {refused}"
        elif self.backend in self.leaves:
            refused = refusal(self.variant, "search",
                              f"Backend {self.backend} (the chip's search)")
        if refused:
            self.info_string(f"{refused}; {what} refused")
            self.variant_choice, self.chess960 = old
            return
        if (choice, chess960) != old:
            self.board = self.new_board()

    def cmd_position(self, args) -> None:
        self.stop_search()
        if not args:
            self.info_string("position: expected 'startpos' or 'fen <FEN>'")
            return
        moves_at = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            fen = None
        elif args[0] == "fen":
            fields = args[1:moves_at]
            if len(fields) == 5:  # a FEN without the fullmove number: as good as one
                fields.append("1")
            fen = " ".join(fields)
        else:
            self.info_string(f"position: expected 'startpos' or 'fen', not {shown(args[0])}; "
                             f"position unchanged")
            return
        try:
            board = self.new_board(fen)
        except ValueError as e:  # FenError, or a number the FEN reader could not take
            self.info_string(f"position: {e}; position unchanged")
            return
        for text in args[moves_at + 1:]:
            try:
                board.push_uci(text)
            except ValueError:
                self.info_string(f"position: illegal move {shown(text)} in {board.fen()}; "
                                 f"the position stops before it")
                break
        self.board = board

    def cmd_stop(self, args) -> None:
        self.stop_search()

    def cmd_ponderhit(self, args) -> None:
        """The GUI's opponent played the move pondered on: the search goes on as a search on
        the go's clock, from now. With no clock in that go, the move is wanted now."""
        if not (self.pondering and self.searching()):
            return  # no ponder search to turn (UCI: nothing to answer)
        self.pondering = False
        if self.ponder_ms is None:
            self.stop_search()
            return
        self.search_limits.infinite = False  # a mate found may end it now
        self.ponder_timer = threading.Timer(self.ponder_ms / 1000, self.searcher.stop)
        self.ponder_timer.daemon = True
        self.ponder_timer.start()
        self.release.set()

    def cmd_go(self, args) -> None:
        self.stop_search()
        if args and args[0] == "perft":
            self._go_perft(args[1:])
            return
        white = self.board.side == 0
        try:
            go = parse_go(args, self.board.parse_uci)
            limits = limits_for(go.params, go.flags, white)
        except Exception as e:  # noqa: BLE001  (a go must end in a bestmove, whatever happened)
            self.info_string(f"go: {type(e).__name__}: {e}; searching {FALLBACK_MOVETIME_MS} ms")
            go, limits = None, Limits(time_ms=FALLBACK_MOVETIME_MS)
        if go is not None:
            for text in go.problems[:MAX_PROBLEMS]:
                self.info_string(text)
            if len(go.problems) > MAX_PROBLEMS:
                self.info_string(f"go: {len(go.problems) - MAX_PROBLEMS} more problems")
            if go.searchmoves:
                limits.root_moves = frozenset(go.searchmoves)
            no_limit = limits.depth is None and limits.nodes is None and limits.time_ms is None
            if no_limit and not limits.infinite:
                if go.malformed:
                    self.info_string(f"go: no valid limit left; searching "
                                     f"{FALLBACK_MOVETIME_MS} ms")
                    limits.time_ms = FALLBACK_MOVETIME_MS
                else:  # a bare "go" searches until stop, as in other engines
                    limits.infinite = True
            self.pondering = "ponder" in go.flags
            self.ponder_ms = ponderhit_ms(go.params, white) if self.pondering else None
        if self.backend in self.leaves:
            if limits.root_moves:
                self.info_string(f"go: searchmoves is not taken by Backend {self.backend}; "
                                 f"every move is searched")
                limits.root_moves = None
            self.searcher = HostThinker(self.leaf_made[self.backend], self.chip_depth)
        else:
            self.searcher = Searcher(self.movegen)
        self.search_limits = limits
        self.search_board = self.board
        self._start(self._search, self.searcher, self.board, limits)

    def _go_perft(self, args) -> None:
        """``go perft N`` as Stockfish answers it (see engine.uci.go_perft), on the worker thread:
        a stop ends it."""
        try:
            depth = parse_int(args[0]) if len(args) == 1 else 0
        except ValueError:
            depth = 0
        if not 1 <= depth <= MAX_PERFT_DEPTH:
            self.info_string(f"go perft needs a depth from 1 to {MAX_PERFT_DEPTH}, not "
                             f"{clipped(' '.join(args)) if args else 'nothing'}")
            return
        self._start(go_perft, self.board, depth, self.movegen.gen, self.perft_stop.is_set,
                    self.send, self.info_string)

    # --- the search ------------------------------------------------------------------------

    def _search(self, searcher, board: Board, limits: Limits) -> None:
        best = "0000"
        root = len(board.hist)
        try:
            result = searcher.think(board, limits, self._send_iteration)
            if result.best_move is not None:
                best = board.uci(result.best_move)
            elif board.in_check():
                self.send("info depth 0 score mate 0")
            else:
                self.send("info depth 0 score cp 0")
        except Exception as e:  # noqa: BLE001  (report it and still move)
            self.info_string(f"search failed: {type(e).__name__}: {e}")
            try:  # back to the root, then any legal move, on the reference generator
                while len(board.hist) > root:
                    board.takeback()
                legal = board.legal_moves()
                best = board.uci(legal[0]) if legal else "0000"
            except Exception as e2:  # noqa: BLE001  (the board itself is broken)
                self.info_string(f"no legal move found: {type(e2).__name__}: {e2}")
        if limits.infinite:  # UCI: no bestmove before stop (or ponderhit)
            self.release.wait()
        self.send(f"bestmove {best}")

    def _send_iteration(self, it) -> None:
        ms = int(it.seconds * 1000)
        nps = int(it.nodes / it.seconds) if it.seconds > 0 else 0
        self.send(f"info depth {it.depth} seldepth {it.seldepth} score {uci_score(it.score)} "
                  f"nodes {it.nodes} nps {nps} time {ms} pv {pv_uci(it.pv, self.search_board)}")

    # --- the worker thread -----------------------------------------------------------------

    def _start(self, target, *args) -> None:
        self.release.clear()
        self.perft_stop.clear()
        self.thread = threading.Thread(target=target, args=args, name="uci-worker", daemon=True)
        self.thread.start()

    def searching(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait (without stopping it) for the running search or perft to end; True if none
        runs any more. A search that waits for stop does not end here."""
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.searching()

    def stop_search(self, timeout: float | None = None) -> None:
        """Stop a running search or perft and wait for its end (its bestmove, or the end of the
        count), at most ``timeout`` seconds."""
        if self.thread is None:
            return
        if self.ponder_timer is not None:
            self.ponder_timer.cancel()
            self.ponder_timer = None
        if self.searcher is not None:
            self.searcher.stop()
        self.perft_stop.set()
        self.release.set()
        self.pondering = False
        self.thread.join(timeout)
        if not self.thread.is_alive():
            self.thread = None


def main(movegens=None, variant=CHESS, leaves=None) -> int:
    """``variant``: the UCI_Variant to start with (``posdata uci --variant``)."""
    engine = UciEngine(movegens=movegens, leaves=leaves)
    engine.variant_choice = get_variant(variant)
    engine.board = engine.new_board()
    stdin = getattr(sys.stdin, "buffer", sys.stdin)  # None when started with stdin closed
    try:
        if stdin is not None:
            engine.run(stdin)
    except KeyboardInterrupt:
        pass  # a person pressed ^C
    if engine.output_lost:
        # What is left in stdout's buffer goes nowhere, not into a "BrokenPipeError" at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 0


if __name__ == "__main__":
    sys.exit(main())

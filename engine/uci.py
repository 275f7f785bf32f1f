"""The UCI protocol: what lets a chess GUI (or python-chess's ``chess.engine``) drive the search.

The main thread reads commands; ``go`` starts the search in a worker thread, so ``stop``,
``isready`` and ``quit`` are answered while it runs. The worker prints the ``info`` lines and the
``bestmove``. Nothing the GUI sends may crash the engine: unknown commands and bad values are
answered with ``info string <what was wrong>`` and otherwise ignored, and any internal error in a
command or in the search is reported the same way (a search that fails still answers with a
legal ``bestmove``).

Supported: uci, isready, ucinewgame, position startpos|fen ... [moves ...], go (depth, movetime,
wtime/btime/winc/binc/movestogo, nodes, mate, infinite, ponder, searchmoves), stop, ponderhit,
quit, setoption, debug and register (accepted, ignored), and ``d`` (not UCI: prints the current
FEN as an info string, for people typing at the engine).

Options: MoveGen (one of the generators the engine was given), UCI_Variant (a combo of the
variants of ``engine.variants``, Fairy-Stockfish's names accepted too: ``fischerandom`` is
``chess960``) and UCI_Chess960 (a check, as Fairy-Stockfish offers them). With UCI_Chess960 on,
chess is played as Chess960 (Shredder-FEN or X-FEN castling rights), and castling is written as
the king taking its own rook (``e1h1``) in every variant; the chess960 variant always writes it
so. A generator that cannot play a variant (the gateware: orthodox chess only) is refused for it
with an info string.
"""

import sys
import threading

from . import movegen as reference_movegen
from .board import Board
from .fen import FenError
from .perft import divide
from .search import MAX_DEPTH, Limits, MoveGenUnavailable, Searcher, pv_uci, uci_score
from .variants import BY_NAME, CHESS, VARIANTS, VariantError, get_variant

ENGINE_NAME = "posdata"
ENGINE_AUTHOR = "the posdata developers"

#: time kept back from every deadline for the interpreter's and the pipe's latency
MOVE_OVERHEAD_MS = 30
MIN_SEARCH_MS = 5
#: the deepest `go perft` (deeper counts take hours in Python)
MAX_PERFT_DEPTH = 12
#: a clock with no movestogo is shared as if this many moves remained
DEFAULT_MOVES_TO_GO = 30
#: a go whose every limit was malformed still moves, after this long
FALLBACK_MOVETIME_MS = 1000

_GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate",
                  "movetime")
_GO_FLAGS = ("infinite", "ponder")

#: the generators of a bare engine (``python -m posdata.engine``): name -> factory. The
#: ``posdata uci`` command adds the gateware's (posdata.sim.drivers.movegens).
SOFTWARE_MOVEGENS = {"sw": lambda: reference_movegen}
#: the values UCI_Variant offers: ours, then Fairy-Stockfish's other spellings
VARIANT_CHOICES = tuple(v.name for v in VARIANTS) + tuple(
    v.fsf_name for v in VARIANTS if v.fsf_name != v.name)


def plays_variant(movegen, variant) -> bool:
    """Can this move generator play ``variant``? A generator declares it with
    ``SUPPORTS_VARIANTS`` (the reference does); any other plays orthodox chess only."""
    return variant is CHESS or getattr(movegen, "SUPPORTS_VARIANTS", False)


class UciEngine:
    """``movegens`` maps the values of the MoveGen option to factories of move generators
    (objects with ``gen``/``gen_caps``, see engine.search); a factory may raise
    MoveGenUnavailable. The first is the default."""

    def __init__(self, out=None, movegens=None):
        self.out = out if out is not None else sys.stdout
        self.out_lock = threading.Lock()
        self.variant_choice = CHESS  #: UCI_Variant
        self.search_board = None  #: the board of the running search (its notation)
        self.chess960 = False  #: UCI_Chess960
        self.board = self.new_board()
        self.movegens = dict(movegens or SOFTWARE_MOVEGENS)
        self.movegen_name = next(iter(self.movegens))
        self.movegen = self.movegens[self.movegen_name]()
        self.searcher: Searcher | None = None
        self.thread: threading.Thread | None = None
        self.release = threading.Event()  # an infinite/ponder search may print its bestmove
        self.commands = {
            "uci": self.cmd_uci, "isready": self.cmd_isready, "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position, "go": self.cmd_go, "stop": self.cmd_stop,
            "ponderhit": self.cmd_stop, "setoption": self.cmd_setoption,
            "debug": self.cmd_ignore, "register": self.cmd_ignore, "d": self.cmd_d,
        }

    # --- input and output ------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self.out_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info_string(self, text: str) -> None:
        # One printable line, whatever the text: it may echo bytes the GUI sent us.
        text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(text.split()))
        self.send("info string " + text)

    def run(self, stream) -> None:
        """Read commands until ``quit`` or the end of input. ``stream`` yields bytes (stdin's
        buffer: bytes that are not UTF-8 must not kill the engine) or str lines."""
        try:
            while True:
                raw = stream.readline()
                if not raw:
                    break
                line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
                if not self.handle(line):
                    break
        finally:
            self.stop_search()

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
        self.send(f"option name MoveGen type combo default {next(iter(self.movegens))} "
                  f"{' '.join('var ' + n for n in self.movegens)}")
        self.send(f"option name UCI_Variant type combo default {CHESS.name} "
                  f"{' '.join('var ' + n for n in VARIANT_CHOICES)}")
        self.send("option name UCI_Chess960 type check default false")
        self.send("uciok")

    def cmd_isready(self, args) -> None:
        self.send("readyok")

    def cmd_ignore(self, args) -> None:
        pass

    def cmd_d(self, args) -> None:
        if self.searching():
            self.info_string("searching; the position is shown after the search")
        else:
            self.info_string(f"fen {self.board.fen()}")

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
        setter = {"movegen": self._set_movegen, "uci_variant": self._set_variant,
                  "uci_chess960": self._set_chess960}.get(name.lower())
        if setter is None:
            self.info_string(f"setoption: no option named {name!r}")
            return
        setter(value.strip())

    def _set_movegen(self, value: str) -> None:
        value = value.lower()
        if value not in self.movegens:
            self.info_string(f"setoption: MoveGen must be one of {', '.join(self.movegens)}, "
                             f"not {value!r}")
            return
        self.stop_search()
        try:
            movegen = self.movegens[value]()
        except MoveGenUnavailable as e:
            self.info_string(f"{e}; MoveGen stays {self.movegen_name}")
            return
        if not plays_variant(movegen, self.variant):
            self.info_string(f"MoveGen {value} does not play {self.variant.name}; MoveGen stays "
                             f"{self.movegen_name}")
            return
        self.movegen, self.movegen_name = movegen, value

    def _set_variant(self, value: str) -> None:
        try:
            variant = get_variant(value.lower())
        except VariantError as e:
            self.info_string(f"setoption: UCI_Variant: {e}")
            return
        self._change_variants(variant, self.chess960, f"UCI_Variant {variant.name}")

    def _set_chess960(self, value: str) -> None:
        if value.lower() not in ("true", "false"):
            self.info_string(f"setoption: UCI_Chess960 must be true or false, not {value!r}")
            return
        self._change_variants(self.variant_choice, value.lower() == "true",
                              f"UCI_Chess960 {value.lower()}")

    def _change_variants(self, choice, chess960: bool, what: str) -> None:
        self.stop_search()
        old = (self.variant_choice, self.chess960)
        self.variant_choice, self.chess960 = choice, chess960
        if not plays_variant(self.movegen, self.variant):
            self.info_string(f"MoveGen {self.movegen_name} does not play {self.variant.name}; "
                             f"{what} refused")
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
            self.info_string(f"position: expected 'startpos' or 'fen', not {args[0]!r}; "
                             f"position unchanged")
            return
        try:
            board = self.new_board(fen)
        except FenError as e:
            self.info_string(f"position: {e}; position unchanged")
            return
        for text in args[moves_at + 1:]:
            try:
                board.push_uci(text)
            except ValueError:
                self.info_string(f"position: illegal move {text!r} in {board.fen()}; "
                                 f"the position stops before it")
                break
        self.board = board

    def cmd_stop(self, args) -> None:
        self.stop_search()

    def cmd_go(self, args) -> None:
        self.stop_search()
        if args and args[0] == "perft":
            self._go_perft(args[1:])
            return
        params, flags, searchmoves, malformed = self._parse_go(args)
        limits = self._limits(params, flags)
        if searchmoves:
            limits.root_moves = frozenset(searchmoves)
        no_limit = (limits.depth is None and limits.nodes is None and limits.time_ms is None)
        if no_limit and not limits.infinite:
            if malformed:
                self.info_string(f"go: no valid limit left; searching {FALLBACK_MOVETIME_MS} ms")
                limits.time_ms = FALLBACK_MOVETIME_MS
            else:  # a bare "go" searches until stop, as in other engines
                limits.infinite = True
        self.release.clear()
        self.searcher = Searcher(self.movegen)
        self.search_board = self.board
        self.thread = threading.Thread(target=self._search,
                                       args=(self.searcher, self.board, limits),
                                       name="search", daemon=True)
        self.thread.start()

    def _go_perft(self, args) -> None:
        """``go perft N`` as Stockfish answers it: ``move: count`` per legal root move, a blank
        line, ``Nodes searched: total``, a blank line (on the chosen generator; leaves counted
        in bulk, which gives the same counts)."""
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= MAX_PERFT_DEPTH:
            self.info_string(f"go perft needs a depth from 1 to {MAX_PERFT_DEPTH}, not "
                             f"{' '.join(args) or 'nothing'}")
            return
        counts = divide(self.board, int(args[0]), self.movegen.gen, bulk=True)
        for m, n in counts.items():
            self.send(f"{self.board.uci(m)}: {n}")
        self.send("")
        self.send(f"Nodes searched: {sum(counts.values())}")
        self.send("")

    # --- go --------------------------------------------------------------------------------

    def _parse_go(self, args):
        params, flags, searchmoves = {}, set(), []
        malformed = False
        i = 0
        while i < len(args):
            token = args[i]
            if token in _GO_INT_PARAMS:
                value = args[i + 1] if i + 1 < len(args) else None
                try:
                    params[token] = int(value)
                    i += 2
                except (TypeError, ValueError):
                    got = "nothing" if value is None else repr(value)
                    self.info_string(f"go: {token} needs an integer, not {got}; ignored")
                    malformed = True
                    i += 1 if value is None or value in _GO_INT_PARAMS + _GO_FLAGS else 2
            elif token in _GO_FLAGS:
                flags.add(token)
                i += 1
            elif token == "searchmoves":
                i += 1
                while i < len(args) and args[i] not in _GO_INT_PARAMS + _GO_FLAGS:
                    try:
                        searchmoves.append(self.board.parse_uci(args[i]))
                    except ValueError:
                        self.info_string(f"go: searchmoves: {args[i]!r} is not a legal move")
                    i += 1
            else:
                self.info_string(f"go: unknown parameter {token!r}; ignored")
                i += 1
        # Values out of their range are reported and dropped, never trusted.
        for name, lowest in (("depth", 1), ("nodes", 1), ("mate", 1), ("movetime", 0),
                             ("movestogo", 1), ("winc", 0), ("binc", 0)):
            if name in params and params[name] < lowest:
                self.info_string(f"go: {name} must be at least {lowest}, not {params[name]}; "
                                 f"ignored")
                del params[name]
                malformed = True
        return params, flags, searchmoves, malformed

    def _limits(self, params: dict, flags: set) -> Limits:
        limits = Limits(infinite=bool(flags & {"infinite", "ponder"}))
        if "depth" in params:
            limits.depth = min(params["depth"], MAX_DEPTH)
        if "mate" in params:  # a mate in n moves lies within 2n - 1 plies
            depth = min(2 * params["mate"] - 1, MAX_DEPTH)
            limits.depth = min(limits.depth or depth, depth)
        if "nodes" in params:
            limits.nodes = params["nodes"]
        if limits.infinite:
            return limits  # the clock does not run while pondering or analysing
        if "movetime" in params:
            limits.time_ms = max(params["movetime"] - MOVE_OVERHEAD_MS, MIN_SEARCH_MS)
            return limits
        white = self.board.side == 0
        clock = params.get("wtime" if white else "btime")
        if clock is not None:
            clock = max(clock, 0)  # some GUIs send a negative time once the flag has fallen
            inc = params.get("winc" if white else "binc", 0)
            moves_to_go = params.get("movestogo", DEFAULT_MOVES_TO_GO)
            target = min(clock / moves_to_go + inc * 3 / 4, clock / 2)
            # Stop starting iterations at half the target (the next one takes several times
            # longer than all before it); abort one that runs past twice the target.
            limits.soft_time_ms = target / 2
            limits.time_ms = max(min(2 * target, clock / 2) - MOVE_OVERHEAD_MS, MIN_SEARCH_MS)
        return limits

    def _search(self, searcher: Searcher, board: Board, limits: Limits) -> None:
        best = "0000"
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
            try:
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

    # --- the search thread -----------------------------------------------------------------

    def searching(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def stop_search(self) -> None:
        """Stop a running search and wait for its bestmove."""
        if self.thread is None:
            return
        if self.searcher is not None:
            self.searcher.stop()
        self.release.set()
        self.thread.join()
        self.thread = None


def main(movegens=None, variant=CHESS) -> int:
    """``variant``: the UCI_Variant to start with (``posdata uci --variant``)."""
    engine = UciEngine(movegens=movegens)
    engine.variant_choice = get_variant(variant)
    engine.board = engine.new_board()
    try:
        engine.run(sys.stdin.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the GUI went away, or a person pressed ^C
    return 0


if __name__ == "__main__":
    sys.exit(main())

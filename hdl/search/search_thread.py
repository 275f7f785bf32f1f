"""The search thread: one job (engine/search/leaf_search.py) searched node for node on the chip.

Its parts, each a component of its own, joined here:

* the perft thread's board (``hdl.chip.chessboard.PerftBoard``: planes and piece memory) and
  attack unit (``hdl.chip.attack``), which answers in-check and legality queries;
* the generator core (``hdl.gen.core``) with its ROMs: a full-width node's moves (stage 2's
  walk), written onto the move stack, a block RAM of moves;
* the capture finder (``hdl.search.finder``): stage 0's push promotions; the capture pipe
  (``hdl.search.capture_pipe``): stage 1's captures as a stream, restarted from the ply's
  cursor;
* make/unmake (``hdl.chip.make_unmake``), the perft thread's sequencer: the position (side to
  move, castling rights, en passant square) and the board's writes, one square a clock;
* what follows every square write: the evaluation's sums (``hdl.search.evaluator``) and the
  position's hash (``hdl.search.zobrist``); the evaluation pipe (``hdl.search.eval_pipe``):
  the child's score and its verdict against the node's window, from the sums and the move
  under test;
* the repetition table (``hdl.search.repetition``): the job's history and the hashes of the
  nodes on the path;
* the control (``hdl.search.search_control``): the node procedure, the per-ply records, the
  killers and the counts.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import Color

from ..chip.attack import AttackUnit
from ..chip.chessboard import PerftBoard, SquareWrite
from ..chip.make_unmake import MakeUnmake
from ..chip.move_stack import StackEntry
from ..gen.core import GeneratorCore
from ..gen.rom import PosdataRom, StartRom
from .capture_pipe import CapturePipe
from .eval_pipe import EvalPipe
from .evaluator import SCORE, Contents, SumsKeeper
from .finder import MOVE, CaptureFinder
from .records import STACK_BITS, HistoryWrite, Job, Past
from .repetition import RepetitionTable
from .search_control import QS_PLY_LIMIT, STATES, SearchControl, Tag, fails_high
from .zobrist import HashKeeper


class SearchThread(wiring.Component):
    """Ports
    -----
    load : In(SquareWrite)   the job's squares, one a clock, while idle: all 64, a1 first (the
                             evaluation's sums and the hash are recomputed from them, whatever
                             came before)
    history : In(HistoryWrite)  the hashes of the job's earlier positions, while idle
    job : In(Job); past : In(Past); start : In(1)   the job and its past, taken with ``start``
    abort : In(1)            back to Idle from any state (``busy`` falls once the parts are
                             quiet); the board is then whatever the search left: load it again
    busy, done : Out(1)      ``done`` pulses with the result
    error : Out(1)           with ``done``, a job refused at its start (records.job_refused:
                             engine.search.leaf_search.job_problem's rules; or a history over
                             REPETITION_PLIES): no search, nothing counted
    score : Out(SCORE); best : Out(MOVE); best_valid : Out(1)   the result
    nodes : Out(64); clocks : Out(64)   the job's nodes and clocks from start to done
    phase : Out  the control's state (``STATES``), for clock accounts

    Parameters
    ----------
    fails_high, ply_limit
        The control's (``SearchControl``): the tests pass a faulty cutoff, a smaller limit.
    """

    load: In(SquareWrite)
    history: In(HistoryWrite)
    job: In(Job)
    past: In(Past)
    start: In(1)
    abort: In(1)
    busy: Out(1)
    done: Out(1)
    error: Out(1)
    score: Out(SCORE)
    best: Out(MOVE)
    best_valid: Out(1)
    nodes: Out(64)
    clocks: Out(64)
    phase: Out(range(len(STATES)))

    def __init__(self, fails_high=fails_high, ply_limit: int = QS_PLY_LIMIT):
        self._fails_high = fails_high
        self._ply_limit = ply_limit
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.control = control = SearchControl(self._fails_high, self._ply_limit)
        m.submodules.board = board = PerftBoard()
        m.submodules.attack = unit = AttackUnit(Tag)
        m.submodules.gen = gen = GeneratorCore()
        m.submodules.rom = rom = PosdataRom()
        m.submodules.starts = starts = StartRom()
        m.submodules.stack = stack = Memory(shape=MOVE, depth=1 << STACK_BITS, init=[])
        m.submodules.finder = finder = CaptureFinder()
        m.submodules.make_unmake = moves = MakeUnmake(StackEntry, "chess")
        m.submodules.sums = sums = SumsKeeper()
        m.submodules.keeper = keeper = HashKeeper()
        m.submodules.captures = pipe = CapturePipe()
        m.submodules.eval_pipe = child = EvalPipe()
        m.submodules.repeats = repeats = RepetitionTable()

        # the host's side: the ports are the thread's own, flat, so one by one
        for name in ("history", "job", "past", "start", "abort"):
            m.d.comb += getattr(control, name).eq(getattr(self, name))
        for name in ("busy", "done", "error", "score", "best", "best_valid", "nodes", "clocks",
                     "phase"):
            m.d.comb += getattr(self, name).eq(getattr(control, name))

        # the board, the attack unit and the generator core, which walks the board's planes
        # as in the perft thread
        wiring.connect(m, board.planes, gen.planes)
        wiring.connect(m, gen.walk, rom.a)
        wiring.connect(m, gen.starts, starts.a)
        wiring.connect(m, board.attack, unit.planes, finder.planes, pipe.planes, child.planes)
        wiring.connect(m, control.query, unit.query)
        wiring.connect(m, unit.result, control.result)
        wiring.connect(m, gen.moves, control.generated)
        # (the core's control ports are flat)
        m.d.comb += [gen.start.eq(control.core.start), gen.expand.eq(control.core.expand),
                     control.core.done.eq(gen.done), control.core.busy.eq(gen.busy),
                     control.kings.eq(board.attack.king)]

        # the move stack: the walk's moves in, the node's moves out
        wiring.connect(m, control.stack_write, stack.write_port())
        wiring.connect(m, control.stack_read, stack.read_port())

        # make and unmake: the board's write port (the host's load passes while idle), its
        # probes of the move under test's squares, the position
        wiring.connect(m, wiring.flipped(self.load), moves.host)
        wiring.connect(m, moves.write, board.write)
        wiring.connect(m, moves.probe_from, board.probe_a)
        wiring.connect(m, moves.probe_to, board.probe_b)
        wiring.connect(m, control.sequencer, moves.control)
        wiring.connect(m, control.hand, moves.hand)
        wiring.connect(m, moves.use, control.use)
        wiring.connect(m, moves.undo, control.undo)
        position = moves.position
        # (positions and pieces are values, not interfaces)
        m.d.comb += [moves.root.eq(control.root), control.position.eq(position),
                     gen.position.eq(position), keeper.position.eq(position),
                     moves.empty.eq(board.planes.empty), moves.king.eq(board.attack.king),
                     control.mover.eq(board.probe_a.piece),
                     finder.side.eq(position.side), finder.ep_valid.eq(position.ep_valid),
                     finder.ep_sq.eq(position.ep_sq),
                     pipe.side.eq(position.side), pipe.ep_valid.eq(position.ep_valid),
                     pipe.ep_sq.eq(position.ep_sq)]
        wiring.connect(m, control.finder, finder.cursors)
        captures = control.captures
        wiring.connect(m, captures.restart, pipe.restart)
        wiring.connect(m, pipe.candidates, captures.candidates)
        m.d.comb += captures.idle.eq(pipe.idle)

        # every square write (the host's load, make's or unmake's) keeps the sums and the hash:
        # what stood on the square goes out (the board's one lookup reads it; a load's is taken
        # as nothing), what lands goes in. A load rebuilds both from nothing (a1 first), so
        # they cannot drift from the planes: after an abort, a reset mid-write, or a load that
        # overwrote a live board.
        w = moves.write
        loading = ~control.busy & self.load.en
        old_black = board.attack.black.bit_select(w.sq, 1)
        old_occ = board.attack.occupied.bit_select(w.sq, 1)
        old, new = Signal(Contents, name="old"), Signal(Contents, name="new")
        m.d.comb += [
            # the square written, else the core's (a walk writes nothing)
            board.lookup.sq.eq(Mux(w.en, w.sq, gen.lookup.sq)),
            gen.lookup.piece.eq(board.lookup.piece),
            old.color.eq(Mux(old_occ & ~loading,
                             Mux(old_black, Color.BLACK, Color.WHITE), Color.EMPTY)),
            old.piece.eq(board.lookup.piece),
            new.color.eq(w.color), new.piece.eq(w.piece),
        ]
        for keeping in (sums, keeper):
            m.d.comb += [keeping.en.eq(w.en), keeping.sq.eq(w.sq), keeping.old.eq(old),
                         keeping.new.eq(new), keeping.restart.eq(loading & (w.sq == 0))]
        m.d.comb += control.hash.eq(keeper.hash)

        # the evaluation pipe: the sums, the board; the move and its pieces from the control
        # (the move under test's probed by make/unmake, or the capture pipe's head's)
        m.d.comb += [child.sums.eq(sums.sums), child.kings.eq(board.attack.king),
                     child.side.eq(position.side), control.captured.eq(board.probe_b.piece)]
        ask = control.evaluation
        m.d.comb += [child.move.eq(ask.move), child.null.eq(ask.null),
                     child.mover.eq(ask.mover), child.captured.eq(ask.captured),
                     child.window.eq(ask.window), ask.score.eq(child.score),
                     ask.verdict.eq(child.verdict)]
        wiring.connect(m, control.repetition, repeats)  # (the table's ports: Table, flipped)
        return m

"""A perft thread: the whole node loop of perft on chip, around the generator core.

The thread counts the leaves of the legal move tree below the position loaded into its board,
depth first, TSCP style (docs/architecture.md, the perft engine). It is made of parts, each a
component of its own, joined here:

* the board (``hdl.chip.chessboard``): the generator's colour planes and piece memory plus the
  attacker planes and king squares the legality unit reads;
* the generator core (``hdl.gen.core``): a node's pseudo-legal moves in generation order;
* the legality collector (``hdl.chip.legality``) and the attack unit (``hdl.chip.attack``): which
  of them are legal, onto the move stack or into the leaf count;
* the move stack and per-ply records (``hdl.chip.move_stack``);
* make/unmake (``hdl.chip.make_unmake``), with castling's squares and rights
  (``hdl.chip.castling``);
* the control (``hdl.chip.thread_control``): generate, descend, return, claim at the split ply.

The move stack holds ``STACK_DEPTH`` entries: 12 plies of the 323 pseudo-legal entries a position
can have at most. A write beyond the end sets ``overflow``, which stays set until the next start:
the count is then not to be trusted.
"""

from amaranth import Module, ResetInserter
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS, get_variant

from ..common.contract import COUNT_BITS, Phase
from ..gen.core import GeneratorCore
from ..gen.rom import DEFAULT_LAYOUT, check_layout, read_port, start_port
from ..image.variant import Geometry
from .attack import AttackUnit
from .chessboard import PerftBoard, check_chip, optional_planes
from .legality import LegalityCollector, tag_layout
from .make_unmake import MakeUnmake, undo_layout
from .modes import BareKing, chip_geometry
from .move_stack import MoveStack, stack_entry
from .ports import CountControl, Listing, root_load
from .thread_control import ClaimPort, ThreadControl


class PerftThread(wiring.Component):
    """Ports
    -----
    load : In(root_load(variant, geometry))
        The root position's board (while idle), one square per clock; its side to move, castling
        rights and en passant square (latched at start); Chess960's castling squares (held
        through a count).
    count : In(CountControl)
        Count perft(``depth``) (bulk or plain); nodes at ply ``split`` are claimed. ``abort``
        stops a count at once (the board is then not the root any more: reload it).
    listing : In(Listing)
        The root's moves, listed while idle: pseudo-legal in generation order (promotions
        expanded), as the move generator does, or legal (tested by the legality unit).
    claim : Out(ClaimPort)
    walk : Out(read_port(geometry)), starts : Out(start_port(geometry))
        The walk ROM port and start-entry port of this thread's generator core.
    busy : Out
        Counting, or listing moves.
    leaves : Out(64)
        Leaves counted so far (of this thread).
    overflow : Out
        The move stack overflowed during the count (sticky until the next start).
    phase : Out(Phase)
        Observation only: where the clock goes.

    Parameters
    ----------
    layout : "dense" or "sparse"
        The walk ROM's layout (``hdl.gen.rom``).
    variant : engine.rules.variants name
        Its pieces' attacker planes (``hdl.chip.chessboard``), its promotion sets (per side, any
        count: a small constant table, and a promotion counts as many leaves as its side has
        pieces), its walk ROM's geometry, Chess960's castling.
    geometry : hdl.image.variant.Geometry
        The walk ROM's (default ``hdl.chip.modes.chip_geometry``). With modes the generator
        walks the walk image, and the thread takes from tables what differs by variant
        (``hdl.chip.modes``: promotions, the bare king) and keeps en passant's victim.
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None):
        self._layout = check_layout(layout)
        self._variant = variant = get_variant(variant)
        check_chip(variant)  # refuse a variant the thread cannot count, at once
        self._geometry = g = geometry or chip_geometry(variant)
        self._entry = stack_entry(variant.chess960, g.mode_bits > 0)
        super().__init__({
            "load": In(root_load(variant, g)), "count": In(CountControl), "listing": In(Listing),
            "claim": Out(ClaimPort),
            "walk": Out(read_port(g)), "starts": Out(start_port(g)),
            "busy": Out(1), "leaves": Out(COUNT_BITS), "overflow": Out(1), "phase": Out(Phase),
        })

    def elaborate(self, platform):
        m = Module()
        variant, entry, g = self._variant, self._entry, self._geometry
        modes = g.mode_bits > 0
        m.submodules.board = board = PerftBoard(variant)
        m.submodules.core = core = GeneratorCore(self._layout, variant, g)
        m.submodules.attack = attack = AttackUnit(tag_layout(entry), optional_planes(variant))
        m.submodules.collector = collector = LegalityCollector(entry, variant, g)
        m.submodules.stack = stack = MoveStack(entry, variant.promotions,
                                               {"undo": undo_layout(modes)},
                                               promo_bits=g.promo_bits if modes else None)
        m.submodules.make_unmake = moves = MakeUnmake(entry, variant, modes)
        m.submodules.control = control = ThreadControl(entry)

        # the board and the generator core
        wiring.connect(m, board.planes, core.planes)
        wiring.connect(m, core.lookup, board.lookup)
        wiring.connect(m, board.attack, attack.planes)
        wiring.connect(m, core.walk, wiring.flipped(self.walk))
        wiring.connect(m, core.starts, wiring.flipped(self.starts))
        m.d.comb += [core.start.eq(control.core.start), core.expand.eq(control.core.expand),
                     control.core.done.eq(core.done), control.core.cycles.eq(core.cycles),
                     core.position.eq(moves.position)]
        # the core's one stream: to the collector while a node is generated, out of the thread
        # while the root's moves are listed pseudo-legal (never both at once); a node whose
        # game has ended (modes: the bare king) has none, its moves taken and dropped
        valid = core.moves.valid
        ready = collector.moves.ready | control.generated.ready
        if modes:
            m.submodules.bare_king = bare_king = BareKing(variant)
            m.d.comb += [bare_king.empty.eq(board.planes.empty),
                         bare_king.black.eq(board.planes.black),
                         bare_king.side.eq(moves.position.side),
                         collector.ep_victim.eq(moves.ep_victim)]
            valid, ready = valid & ~bare_king.ended, ready | bare_king.ended
        for consumer in (collector.moves, control.generated):
            m.d.comb += [consumer.valid.eq(valid), consumer.payload.eq(core.moves.payload)]
        m.d.comb += core.moves.ready.eq(ready)

        # legality: the collector asks the attack unit, and so does make/unmake for a leaf
        wiring.connect(m, collector.ask, attack.query)
        wiring.connect(m, attack.result, collector.answer)
        wiring.connect(m, moves.ask, collector.leaf)
        wiring.connect(m, collector.push, stack.push)
        m.d.comb += [collector.side.eq(moves.position.side), collector.king.eq(board.attack.king),
                     self.leaves.eq(collector.leaves)]

        # make/unmake: the board's write port (the host's writes pass while idle), its probes,
        # and the stack's records
        position = self.load.position
        wiring.connect(m, wiring.flipped(self.load.write), moves.host)
        m.d.comb += [moves.root.eq(position.root), moves.empty.eq(board.planes.empty),
                     moves.king.eq(board.attack.king), stack.side.eq(moves.position.side)]
        wiring.connect(m, moves.write, board.write)
        wiring.connect(m, moves.probe_from, board.probe_a)
        wiring.connect(m, moves.probe_to, board.probe_b)
        wiring.connect(m, stack.hand, moves.hand, control.hand)
        wiring.connect(m, moves.use, stack.use)
        wiring.connect(m, moves.undo, stack.undo)
        if variant.chess960:  # held by the host through a count; the core latches it at start
            m.d.comb += core.castling.eq(position.castling)
            for part in (collector, moves):
                m.d.comb += [part.castling.eq(position.castling), part.rooks.eq(position.rooks)]

        # the control
        wiring.connect(m, control.stack, stack.control)
        wiring.connect(m, control.sequencer, moves.control)
        wiring.connect(m, control.collector, collector.control)
        wiring.connect(m, control.claim, wiring.flipped(self.claim))
        wiring.connect(m, wiring.flipped(self.count), control.count)
        wiring.connect(m, wiring.flipped(self.listing), control.listing)
        m.d.comb += [self.busy.eq(control.busy), self.overflow.eq(stack.overflow),
                     self.phase.eq(control.phase)]

        # ABORT resets every part (the board's planes and memories keep what they hold: reload
        # the root before the next count)
        return ResetInserter({"sync": self.count.abort})(m)

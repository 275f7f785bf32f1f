"""The piece prefetcher: takes the side's pieces in ascending square order and reads each one's
start entry ``posdata[ptype][from][from]`` through a StartPort (the walk ROM's second port, or
a table of start entries of its own) into a small queue, ahead of the walker, so a walk context
that finishes a piece starts the next one at once.

The queue is a ring of registers with read and write pointers: a record lands straight from the
block RAM in the slot the write pointer names (no logic between a block RAM output, which comes
late in the cycle, and its register), and the walker takes the head by advancing the read
pointer (one flip-flop), so neither side waits on the other's logic within a cycle.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, BPAWN, PAWN, WHITE, ptype
from posdata.engine.rules.variants import CHESS, get_variant

from ..common.layouts import PIECE, SQUARE
from ..common.priority import lowest_set_bit
from ..image.addressing import TABLE_BITS
from ..image.variant import Geometry
from ..image.walks import walk_image
from .chessboard import PieceLookup, Planes, TypePlanes, rank_of
from .params import QUEUE_DEPTH
from .rom import ORTHODOX, check_modes, start_port

# table_of computes the engine's table order (engine.rules.defs.ptype, the same in every variant),
# ``side`` high for black: checked here for every code a square holds, on both sides
assert BLACK == 1 and all(ptype(side, code) == (BPAWN if code == PAWN and side else code)
                          for side in (WHITE, BLACK) for code in range(1 << TABLE_BITS))


def table_of(piece, side):
    """The ROM table of the side to move's ``piece`` (a code), and whether it is a pawn: its
    ptype, a black pawn's table BPAWN, every other piece's its code."""
    pawn = piece == PAWN
    return Mux(pawn & side, BPAWN, piece), pawn


def piece_record(geometry: Geometry, first_rank: bool = False) -> data.StructLayout:
    """A piece waiting for the walker: where its walk starts (``first_rank``: and the colour
    planes' rank of its first square, hdl.gen.chessboard.rank_of, for the walker's split lookup)."""
    return data.StructLayout({
        "table": TABLE_BITS,  # ROM table (table_of)
        "pawn": 1,
        "frm": SQUARE,
        **geometry.start_fields,  # its start entry
        **({"first_rank": 16} if first_rank else {}),
    })


PieceRecord = piece_record(ORTHODOX)  #: orthodox chess's (the formal harnesses')


class PiecePrefetcher(wiring.Component):
    """Ports
    -----
    load, side : In
        ``load`` takes the mask of ``side``'s pieces from the colour planes (at start).
    planes : In(Planes)
        The board's colour planes.
    run : In
        Prefetch while ``run``.
    lookup : Out(PieceLookup)
        The piece on a square, from the board.
    starts : Out(StartPort)
        The start entries (one cycle latency).
    pieces : Out(stream.Signature(PieceRecord))
        The pieces in generation order.
    left : Out
        Some piece has not been handed to the walker yet.
    types : In(TypePlanes)
        With ``typed_scan`` only: the board's piece-type planes. The scanner then finds the
        next piece's type with its square and registers both, so the start table's address
        comes from registers (no 64:1 piece lookup before it: the iCE40's critical path).
        Same pieces, same clocks; ``lookup`` is left unused. The scanner keeps registers
        derived from the colour planes (hdl.gen.prefetch.PieceScanner), a clock behind the board:
        ``load`` must not follow a board write in the very next clock.

    Parameters
    ----------
    variant : an engine.rules.variants name: with a geometry with modes, whose table lookup by
        (colour, code) the prefetcher holds (else a piece walks table ptype: ``table_of``)
    first_rank : bool
        Each queued piece also carries its first square's rank of the colour planes, picked
        as its start entry lands (the board does not change while pieces are prefetched): for
        the iCE40's walker (hdl.gen.walker, ``split_lookup``).
    """


    def __init__(self, geometry: Geometry = ORTHODOX, typed_scan: bool = False,
                 first_rank: bool = False, variant=CHESS):
        check_modes(geometry, "dense", typed_scan=typed_scan, split_lookup=first_rank)
        self._variant = variant
        self._geometry = geometry
        self._typed_scan = typed_scan
        self._first_rank = first_rank
        ports = {
            "load": In(1), "side": In(1), "planes": In(Planes), "run": In(1),
            "lookup": Out(PieceLookup), "starts": Out(start_port(geometry)),
            "pieces": Out(stream.Signature(piece_record(geometry, first_rank))),
            "left": Out(1)}
        if typed_scan:
            ports["types"] = In(TypePlanes)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()

        m.submodules.scanner = scanner = PieceScanner(self._typed_scan)
        if self._typed_scan:
            m.d.comb += [scanner.types.eq(self.types.bits), scanner.side.eq(self.side),
                         scanner.own_w.eq(~self.planes.empty & ~self.planes.black),
                         scanner.own_b.eq(~self.planes.empty & self.planes.black)]
        planes = self.planes
        m.d.comb += [
            scanner.load.eq(self.load),
            scanner.own.eq(~planes.empty & Mux(self.side, planes.black, ~planes.black)),
        ]

        record = piece_record(self._geometry, self._first_rank)
        ring = Array(Signal(record, name=f"queue{i}") for i in range(QUEUE_DEPTH))
        rd = Signal(range(QUEUE_DEPTH))
        wr = Signal(range(QUEUE_DEPTH))
        count = Signal(range(QUEUE_DEPTH + 1))
        inflight = Signal()  # a start entry is being read
        inflight_rec = Signal(record)

        # Take the next piece when the queue will have room for it.
        issue = Signal()
        if self._typed_scan:
            is_pawn, table = scanner.pawn, scanner.table
        elif self._geometry.mode_bits:
            # walks with modes: a piece's table by (colour, code), the walk image's (an
            # asymmetric piece's Black walks a table of its own: makruk's khon), as memory
            # contents, so that a new variant changes no logic
            m.submodules.tables = tables = Memory(
                shape=TABLE_BITS, depth=2 << TABLE_BITS,
                init=walk_image(get_variant(self._variant)).table_lookup())
            lookup = tables.read_port(domain="comb")
            m.d.comb += lookup.addr.eq(Cat(self.lookup.piece, self.side))
            table, is_pawn = lookup.data, self.lookup.piece == PAWN
        else:
            table, is_pawn = table_of(self.lookup.piece, self.side)
        sq = scanner.square
        m.d.comb += [
            self.lookup.sq.eq(sq),
            issue.eq(self.run & scanner.any & (count + inflight < QUEUE_DEPTH)),
            self.starts.table.eq(table),
            self.starts.frm.eq(sq),
            self.starts.en.eq(issue),
            scanner.take.eq(issue),
        ]
        m.d.sync += inflight.eq(issue)
        with m.If(issue):
            m.d.sync += [inflight_rec.table.eq(table), inflight_rec.pawn.eq(is_pawn),
                         inflight_rec.frm.eq(sq)]

        # The start entry lands straight in the queue.
        landed = Signal(record)
        fields = self._geometry.start_fields
        entry = data.StructLayout(fields)(self.starts.data)
        m.d.comb += landed.eq(inflight_rec)
        m.d.comb += [landed[name].eq(entry[name]) for name in fields]
        if self._first_rank:
            m.d.comb += landed.first_rank.eq(rank_of(planes, entry.first))
        with m.If(inflight):
            m.d.sync += [ring[wr].eq(landed), wr.eq(wr + 1)]
        pop = self.pieces.valid & self.pieces.ready
        with m.If(pop):
            m.d.sync += rd.eq(rd + 1)
        m.d.sync += count.eq(count + inflight - pop)

        m.d.comb += [
            self.pieces.payload.eq(ring[rd]),
            self.pieces.valid.eq(count != 0),
            self.left.eq((count != 0) | inflight | scanner.left),
        ]
        with m.If(self.load):
            m.d.sync += [rd.eq(0), wr.eq(0), count.eq(0), inflight.eq(0)]
        return m


class PieceScanner(wiring.Component):
    """The pieces not yet taken, lowest square first. The candidate square is a register,
    computed from the mask while no candidate is waiting: taking one costs a cycle before the
    next is known (two cycles per piece, still twice the rate the walker takes them), and the
    priority encoder gets a whole clock to itself.

    With ``typed_scan`` the candidate's ROM table and pawn flag (from ``types``, three planes,
    and ``side``) are found beside its square, and all come from registers without an encoder:
    see ``_elaborate_typed``."""

    def __init__(self, typed_scan: bool = False):
        self._typed_scan = typed_scan
        ports = {"load": In(1), "own": In(64), "take": In(1),
                 "any": Out(1),      # a candidate is ready
                 "square": Out(SQUARE),
                 "left": Out(1)}     # a candidate is ready or some piece is still in the mask
        if typed_scan:
            # ``own`` by colour and the side (``own`` is theirs); out the candidate's ROM
            # table (table_of) and whether it is a pawn
            ports |= {"types": In(64 * PIECE.width), "table": Out(TABLE_BITS), "pawn": Out(1),
                      "own_w": In(64), "own_b": In(64), "side": In(1)}
        super().__init__(ports)

    def elaborate(self, platform):
        if self._typed_scan:
            return self._elaborate_typed()
        m = Module()
        pending = Signal(64)
        valid = Signal()
        square = Signal(SQUARE)
        any_pending, lowest = lowest_set_bit(m, pending, "next_piece")
        m.d.comb += [self.any.eq(valid), self.square.eq(square)]
        taken = pending & ~(Const(1, 64) << square)[:64]
        with m.If(self.load):
            m.d.sync += [pending.eq(self.own), valid.eq(0)]
        with m.Elif(self.take):
            m.d.sync += [pending.eq(taken), valid.eq(0)]
        with m.Elif(~valid):
            m.d.sync += [square.eq(lowest), valid.eq(any_pending)]
        m.d.comb += self.left.eq(valid | any_pending)
        return m

    def _elaborate_typed(self):
        # Registers kept with the mask (``pending``): which of its bytes have a bit set and
        # each byte's lowest bit (``byte_first``, one-hot in each byte). The clock that finds a
        # candidate registers, per byte, the ROM table and pawn flag of that bit's piece and the
        # index of that bit, and the lowest byte with a bit (one-hot, by a carry chain): the
        # candidate's square and table are then an AND-OR of sixteen registers, in the clock
        # that sends them to the start table (the pawn/side rule, between the type and the
        # table, was on the iCE40's critical path there). It also registers the mask without
        # the candidate (``rest``), from which a take loads the registers above. Same clocks as
        # the encoder's scanner.
        m = Module()
        pending = Signal(64)
        valid = Signal()
        pending_bytes = Signal(8)
        pending_bytes_n = Signal(8, init=0xFF)  # ~pending_bytes: the carry chain's input
        byte_first = Signal(64)
        rest = Signal(64)
        group_r = Signal(8)
        tables_r = [Signal(TABLE_BITS, name=f"table{g}") for g in range(8)]
        pawns_r = Signal(8)
        index_r = [Signal(3, name=f"index{g}") for g in range(8)]
        any_pending = pending_bytes.any()
        # whether the mask has a bit set, a register too: ``left`` feeds the merger's end
        # decision, which is long enough without an OR before it
        pending_any = Signal()
        m.d.comb += [self.any.eq(valid), self.left.eq(valid | pending_any)]

        # What a load takes, per colour, registered every clock from the colour planes (a
        # clock behind a board write; the board is written only while idle, and a start comes
        # clocks after the last write): a load then only selects by side between registers.
        # Computed at the load, behind the side's multiplexer, the byte flags and the 64-input
        # OR were the iCE40's critical path (the whole clock).
        derived = {}
        for colour, own in (("w", self.own_w), ("b", self.own_b)):
            bytes_c = Signal(8, name=f"bytes_{colour}")
            firsts_c = Signal(64, name=f"firsts_{colour}")
            any_c = Signal(name=f"any_{colour}")
            m.d.sync += [bytes_c.eq(bytes_any(own)), firsts_c.eq(firsts_in_bytes(own)),
                         any_c.eq(own.any())]
            derived[colour] = (bytes_c, firsts_c, any_c)

        def by_side(i):
            return Mux(self.side, derived["b"][i], derived["w"][i])

        with m.If(self.load):
            m.d.sync += [pending.eq(self.own), valid.eq(0),
                         pending_bytes.eq(by_side(0)), pending_bytes_n.eq(~by_side(0)),
                         byte_first.eq(by_side(1)), pending_any.eq(by_side(2))]
        with m.Elif(self.take):
            m.d.sync += [pending.eq(rest), valid.eq(0),
                         pending_bytes.eq(bytes_any(rest)),
                         pending_bytes_n.eq(~bytes_any(rest)),
                         byte_first.eq(firsts_in_bytes(rest)), pending_any.eq(rest.any())]
        with m.Elif(~valid):
            group = (pending_bytes & (pending_bytes_n + 1))[:8]  # lowest_alone
            first = Cat(group[g].replicate(8) for g in range(8)) & byte_first
            m.d.sync += [valid.eq(any_pending), rest.eq(pending & ~first), group_r.eq(group)]
            for g in range(8):
                one_hot = byte_first[8 * g:8 * g + 8]
                piece = Cat((one_hot & self.types[64 * k + 8 * g:64 * k + 8 * g + 8]).any()
                            for k in range(PIECE.width))
                table, pawn = table_of(piece, self.side)
                m.d.sync += [
                    tables_r[g].eq(table),
                    pawns_r[g].eq(pawn),
                    index_r[g].eq(Cat(index_bit(one_hot, j) for j in range(3)))]

        def select(values):
            return Cat(Cat(group_r[g] & v[j] for g, v in enumerate(values)).any()
                       for j in range(len(values[0])))

        m.d.comb += [self.table.eq(select(tables_r)), self.pawn.eq((group_r & pawns_r).any()),
                     self.square.eq(Cat(select(index_r),
                                        Cat(index_bit(group_r, j) for j in range(3))))]
        return m


def index_bit(one_hot, j):
    """Bit ``j`` of the index of the 8-bit ``one_hot``'s set bit."""
    return Cat(one_hot[i] for i in range(8) if i >> j & 1).any()

def bytes_any(vector):
    """Which of the 64-bit ``vector``'s eight bytes have a bit set."""
    return Cat(vector[8 * g:8 * g + 8].any() for g in range(8))


def lowest_alone(bits):
    """The lowest set bit of ``bits`` alone, as ``bits & -bits``: on the iCE40 a carry chain
    (Yosys maps the adder to SB_CARRY), where a LUT network for "no lower bit set" became a
    chain of LUT levels after ABC shared its terms."""
    return (bits & (~bits + 1))[:len(bits)]


def firsts_in_bytes(vector):
    """The lowest set bit of each byte of the 64-bit ``vector`` alone."""
    return Cat(lowest_alone(vector[8 * g:8 * g + 8]) for g in range(8))

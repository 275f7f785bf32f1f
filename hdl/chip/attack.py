"""The legality unit's core: is a square attacked, on the board after a move?

TSCP's legality rule is "the mover's king is not attacked after the move". Sandström's SqAtakd walks
the posdata ROM outward from the square (engine.rules.board.attacked: 20-35 table reads a test);
here the whole question is answered in parallel from the board's 64-bit planes, one query per clock,
in a pipeline of five clocks:

* clock 1: the query, registered.
* clock 2: which rank, file and diagonals pass through the tested square, where the move's
  squares lie on them, the knight and pawn squares around it (arithmetic on square numbers,
  registered so the next clock only selects).
* clock 3: those lines are gathered from the planes (occupied, black, rook-or-queen,
  bishop-or-queen), eight squares each, and the leaper squares from the knight and pawn planes.
* clock 4: the move is applied to the lines (its from-square and an en passant victim taken
  off, its to-square occupied by the mover, whatever stood there removed); on each of the eight
  rays the first occupied square decides (an attacker of the ray's kind, or a blocker).
* clock 5: any ray, leaper or the enemy king next to the square: the result, registered.

A variant with nightriders (``"nightrider"`` among ``optional``) adds a plane of them and eight
more rays, one per knight leap from the square, ``NIGHTRIDER_REACH`` squares long at most: their
squares are reckoned in clock 2 like the knight squares, their occupancy and attacker bits read
one square at a time in clock 3, the move applied and the first occupied square taken in clock
4, like the lines. Nothing else changes, the latency included; without nightriders none of it is
built. So with the other optional planes (``OPTIONAL_PLANES``):

* leapers (ferz, wazir, alfil, dabbaba, and the forward wazir, whose square lies behind the
  tested one as its colour sees the board, as the pawn's do): squares of their own beside the
  knight's, read the same way;
* grasshoppers (``hop_orth``, ``hop_diag``: gR and gB lines): on each ray the square next to the
  tested one must be occupied (the hurdle), and the first occupied square beyond it is an
  attacker of the plane's kind; from the lines' occupancy, with the move applied, in clock 4.
  Whatever a move does to a hurdle (vacate it, fill it) is on the lines, so no question is
  answered from a stale board.

A query names the square, the attacking side, and up to three squares the move changes: ``clr``
(vacated: the from-square), ``put`` (now holds one of the mover's pieces: the to-square; an enemy
piece there is captured, so it attacks no more), ``epc`` (vacated: an en passant victim). Any of
them may be absent (``*_valid`` low): with none, the query asks about the board as it stands.

The board is read in clocks 2 (the kings' squares) and 3 (the planes): a write asked for in the
clock after a query (it reaches the planes a clock later, hdl.chip.chessboard) is not seen.
"""

import functools

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.pieces import KIND_DEFINITION, AttackKind, parse_piece

from ..common.layouts import SQUARE

# The pipeline's data registers have no reset: ABORT need only clear the valid bits, so a
# thread's ABORT register reaches a few flip-flops of the unit, not all of them (a net of
# hundreds of sinks cannot be routed short).
Datum = functools.partial(Signal, reset_less=True)


#: attacker planes built only for a variant whose pieces need them (hdl.chip.chessboard)
OPTIONAL_PLANES = ("nightrider", "ferz", "wazir", "alfil", "dabbaba", "fwazir", "hop_orth",
                   "hop_diag")

#: the leaper planes' steps from the attacker, as (file step, rank step); "pawn": forward as the
#: attacker's colour sees the board
LEAPER_STEPS = {
    "ferz": ((1, 1), (1, -1), (-1, -1), (-1, 1)),
    "wazir": ((0, 1), (1, 0), (0, -1), (-1, 0)),
    "alfil": ((2, 2), (2, -2), (-2, -2), (-2, 2)),
    "dabbaba": ((0, 2), (2, 0), (0, -2), (-2, 0)),
    "fwazir": ((0, "pawn"),),
}

#: the line kinds each grasshopper plane hops along
HOP_LINES = {"hop_orth": ("rank", "file"), "hop_diag": ("diag", "anti")}


def _check_optional(optional) -> tuple[str, ...]:
    unknown = set(optional) - set(OPTIONAL_PLANES)
    if unknown:
        raise ValueError(f"no attacker plane named {', '.join(sorted(unknown))}: choose from "
                         f"{', '.join(OPTIONAL_PLANES)}")
    return tuple(name for name in OPTIONAL_PLANES if name in optional)


def attack_planes(optional=()) -> wiring.Signature:
    """The board as the attack unit reads it: one bit per square (a1 = bit 0). The optional
    planes only for a variant that has their pieces (the orthodox signature stays as it was)."""
    members = {
        "occupied": Out(64),
        "black": Out(64),
        "orth": Out(64),     # rook or queen (or what else rides rook lines)
        "diag": Out(64),     # bishop or queen
        "knight": Out(64),
        "pawn": Out(64),
        "king": Out(data.ArrayLayout(SQUARE, 2)),  # per colour (WHITE 0, BLACK 1)
    }
    for name in _check_optional(optional):
        members[name] = Out(64)
    return wiring.Signature(members)


AttackPlanes = attack_planes()  #: the orthodox unit's

Query = data.StructLayout({
    "sq": SQUARE,        # the square tested
    "by": 1,             # the attacking side
    "clr": SQUARE, "clr_valid": 1,
    "put": SQUARE, "put_valid": 1,
    "epc": SQUARE, "epc_valid": 1,
})

LATENCY = 5  #: clocks from a query to its result

#: knight leaps as (file step, rank step)
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))

#: the longest nightrider ray on 8x8 (3 leaps: a1-b3-c5-d7), from the engine's own rays
NIGHTRIDER_REACH = max(len(ray) for sq in range(64)
                       for ray in parse_piece(KIND_DEFINITION[AttackKind.KNIGHT_RIDER]).rays(sq))


def line_index(kind: str, sq):
    """Which line of ``kind`` passes through ``sq`` (a Value), and the position on it."""
    file, rank = sq[:3], sq[3:]
    if kind == "rank":
        return rank, file
    if kind == "file":
        return file, rank
    if kind == "diag":      # a1-h8 direction: file - rank is constant; position = rank
        return (file - rank + 7)[:4], rank
    return (file + rank)[:4], rank  # "anti": a8-h1 direction: file + rank constant


def _line_squares(kind: str, index: int) -> list[int | None]:
    """The squares of line ``index`` of ``kind`` by position 0..7 (None: off the board)."""
    out = []
    for pos in range(8):
        if kind == "rank":
            f, r = pos, index
        elif kind == "file":
            f, r = index, pos
        elif kind == "diag":
            f, r = pos + index - 7, pos
        else:
            f, r = index - pos, pos
        out.append(r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None)
    return out


LINES = {"rank": 8, "file": 8, "diag": 15, "anti": 15}  #: kind -> number of lines


def gather_line(m, plane, kind: str, index, name: str):
    """The eight bits of ``plane`` along line ``index`` (a Value) of ``kind``."""
    bits = Signal(8, name=name)
    choices = []
    for i in range(LINES[kind]):
        squares = _line_squares(kind, i)
        choices.append(Cat(*(plane[sq] if sq is not None else Const(0) for sq in squares)))
    m.d.comb += bits.eq(Array(choices)[index])
    return bits


def query_stream(tag_shape) -> wiring.Signature:
    """The unit's queries as their sender sees them: a query and its tag, one a clock."""
    layout = data.StructLayout({"query": Query, "tag": tag_shape})
    return stream.Signature(layout, always_ready=True)


def result_stream(tag_shape) -> wiring.Signature:
    """The unit's answers as it sends them: attacked or not, and the query's tag."""
    return stream.Signature(data.StructLayout({"attacked": 1, "tag": tag_shape}),
                            always_ready=True)


class AttackUnit(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes)
        The board.
    query : In(stream.Signature(Query + tag))
        One query per clock (always ready).
    result : Out(stream.Signature({"attacked", "tag"}))
        ``LATENCY`` clocks after its query, in order.

    Parameters
    ----------
    tag_shape : shape
        Carried from a query to its result unchanged (what the caller needs to act on it).
    optional : names from ``OPTIONAL_PLANES``
        The optional planes read and their attacks tested (``hdl.chip.chessboard
        .optional_planes``): the nightriders' rays, the leapers' squares, the grasshoppers'
        hops.
    """

    def __init__(self, tag_shape=1, optional=()):
        self._tag_shape = tag_shape
        self._optional = optional = _check_optional(optional)
        self._nightrider = "nightrider" in optional
        super().__init__({
            "planes": In(attack_planes(optional)),
            "query": In(query_stream(tag_shape)),
            "result": Out(result_stream(tag_shape)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self.planes

        # --- clock 1: the query ------------------------------------------------------------
        valid1 = Signal()
        q = Datum(Query)
        tag1 = Datum(self._tag_shape)
        m.d.sync += [valid1.eq(self.query.valid), q.eq(self.query.payload.query),
                     tag1.eq(self.query.payload.tag)]

        # --- clock 2: which lines, and where the move's squares lie on them ------------------
        # (arithmetic on square numbers, kept out of the clock that gathers the planes)
        valid2 = Signal()
        tag2 = Datum(self._tag_shape)
        q2 = Datum(Query)
        m.d.sync += [valid2.eq(valid1), tag2.eq(tag1), q2.eq(q)]
        where = {}
        for kind in LINES:
            index, pos = line_index(kind, q.sq)
            index_r = Datum(4, name=f"{kind}_index")
            pos_r = Datum(3, name=f"{kind}_pos")
            m.d.sync += [index_r.eq(index), pos_r.eq(pos)]
            masks = {}
            for name in ("clr", "put", "epc"):  # a one-hot mask of the position, or 0
                sq_index, sq_pos = line_index(kind, getattr(q, name))
                on = getattr(q, f"{name}_valid") & (sq_index == index)
                mask = Datum(8, name=f"{kind}_{name}_mask")
                m.d.sync += mask.eq(Mux(on, Const(1, 8) << sq_pos, 0))
                masks[name] = mask
            where[kind] = (index_r, pos_r, masks)
        # the knight and pawn squares around it, unless the move takes their pieces off
        file, rank = q.sq[:3], q.sq[3:]
        pawn_dr = Mux(q.by, 1, -1)  # a white pawn attacks upwards: it stands a rank below
        steps = [(df, dr, "knight") for df, dr in KNIGHT_STEPS]
        steps += [(-1, "pawn", "pawn"), (1, "pawn", "pawn")]
        steps += [(df, dr, name) for name, leaps in LEAPER_STEPS.items()
                  if name in self._optional for df, dr in leaps]
        leaper_squares = []
        for i, (df, dr, plane) in enumerate(steps):
            f2 = (file + df)[:4]   # 4 bits: a step off the board shows in bit 3 ...
            r2 = (rank + (pawn_dr if dr == "pawn" else dr))[:4]
            sq2 = Cat(f2[:3], r2[:3])
            gone = ((q.clr_valid & (q.clr == sq2)) | (q.put_valid & (q.put == sq2))
                    | (q.epc_valid & (q.epc == sq2)))
            sq_r = Datum(6, name=f"leaper{i}_sq")
            live = Datum(name=f"leaper{i}_live")
            m.d.sync += [sq_r.eq(sq2), live.eq(~f2[3] & ~r2[3] & ~gone)]  # ... as -1 or 8
            leaper_squares.append((sq_r, live, plane))
        rider_squares = self._rider_squares(m, q) if self._nightrider else []
        king_df = Datum(4)
        king_dr = Datum(4)
        m.d.sync += [king_df.eq((p.king[q.by][:3] - file)[:4]),  # 4 bits: -1 (15) is not +7
                     king_dr.eq((p.king[q.by][3:] - rank)[:4])]

        # --- clock 3: gather the lines and the leaper squares from the planes ----------------
        valid3g = Signal()
        tag3g = Datum(self._tag_shape)
        m.d.sync += [valid3g.eq(valid2), tag3g.eq(tag2)]
        by = q2.by
        lines = {}
        for kind, (index, pos, masks) in where.items():
            slider = p.orth if kind in ("rank", "file") else p.diag
            occ = gather_line(m, p.occupied, kind, index, f"{kind}_occ")
            blk = gather_line(m, p.black, kind, index, f"{kind}_black")
            sld = gather_line(m, slider, kind, index, f"{kind}_slider")
            # registered: occupancy, and "an attacker of this line's kind" per position
            occ_r = Datum(8, name=f"{kind}_occ_q")
            att_r = Datum(8, name=f"{kind}_att_q")
            pos_r = Datum(3, name=f"{kind}_pos_q")
            m.d.sync += [occ_r.eq(occ), att_r.eq(occ & sld & Mux(by, blk, ~blk)), pos_r.eq(pos)]
            delayed = {}
            for name, mask in masks.items():
                d = Datum(8, name=f"{kind}_{name}_q")
                m.d.sync += d.eq(mask)
                delayed[name] = d
            hop_r = None
            for plane, kinds in HOP_LINES.items():
                if plane in self._optional and kind in kinds:
                    hop = gather_line(m, getattr(p, plane), kind, index, f"{kind}_hop")
                    hop_r = Datum(8, name=f"{kind}_hop_q")
                    m.d.sync += hop_r.eq(occ & hop & Mux(by, blk, ~blk))
            lines[kind] = (occ_r, att_r, pos_r, delayed, hop_r)
        enemy = p.occupied & Mux(by, p.black, ~p.black)
        planes = {"knight": p.knight & enemy, "pawn": p.pawn & enemy,
                  **{name: getattr(p, name) & enemy for name in LEAPER_STEPS
                     if name in self._optional}}
        leapers = []
        for i, (sq, live, plane) in enumerate(leaper_squares):
            bit = Datum(name=f"leaper{i}")
            m.d.sync += bit.eq(live & planes[plane].bit_select(sq, 1))
            leapers.append(bit)
        riders = (self._rider_bits(m, rider_squares, p.occupied, p.nightrider & enemy)
                  if rider_squares else [])
        near = lambda d: (d == 0) | (d == 1) | (d == 15)  # noqa: E731
        king_hit = Datum()
        m.d.sync += king_hit.eq(near(king_df) & near(king_dr) & (king_df | king_dr).any())

        # --- clock 4: apply the move, first piece on each ray ------------------------------
        hits = []
        for kind, (occ_r, att_r, pos_r, masks, hop_r) in lines.items():
            occ = (occ_r & ~masks["clr"] & ~masks["epc"]) | masks["put"]
            att = att_r & ~masks["clr"] & ~masks["epc"] & ~masks["put"]
            above = Signal(8, name=f"{kind}_above")
            below = Signal(8, name=f"{kind}_below")
            m.d.comb += [above.eq(Const(0xFE, 8) << pos_r), below.eq(~(Const(0xFF, 8) << pos_r))]
            # towards higher positions: the lowest occupied square above decides
            up = occ & above
            first_up = up & (~up + 1)
            # towards lower positions: the highest occupied square below; reverse the bits
            down = Cat(*reversed([(occ & below)[i] for i in range(8)]))
            first_down = down & (~down + 1)
            att_rev = Cat(*reversed([att[i] for i in range(8)]))
            hits += [(first_up & att).any(), (first_down & att_rev).any()]
            if hop_r is not None:
                hits += self._hops(m, kind, occ, hop_r & ~masks["clr"] & ~masks["epc"]
                                   & ~masks["put"], pos_r, above, below)
        for ray in riders:  # nearest first: a square attacks if nothing before it is occupied
            clear = Const(1)
            for occ, att in ray:
                hits.append(clear & att)
                clear = clear & ~occ
        rays = Datum(len(hits))
        m.d.sync += rays.eq(Cat(*hits))
        close = Datum(len(leapers) + 1)  # registered in clock 3, held for clock 5
        m.d.sync += close.eq(Cat(*leapers, king_hit))
        valid3 = Signal()
        tag3 = Datum(self._tag_shape)
        m.d.sync += [valid3.eq(valid3g), tag3.eq(tag3g)]

        # --- clock 5: any attack -------------------------------------------------------------
        attacked = Datum()
        valid4 = Signal()
        tag4 = Datum(self._tag_shape)
        m.d.sync += [attacked.eq(rays.any() | close.any()), valid4.eq(valid3), tag4.eq(tag3)]
        m.d.comb += [self.result.valid.eq(valid4), self.result.payload.attacked.eq(attacked),
                     self.result.payload.tag.eq(tag4)]
        return m

    @staticmethod
    def _hops(m, kind, occ, att, pos, above, below):
        """Clock 4: the grasshoppers' attacks along one line, both ways: the square next to the
        tested one occupied, and the first occupied square beyond it an attacker."""
        next_up = Signal(8, name=f"{kind}_next_up")
        next_down = Signal(8, name=f"{kind}_next_down")
        m.d.comb += [next_up.eq(Const(0x02, 8) << pos), next_down.eq((Const(1, 8) << pos) >> 1)]
        hits = []
        for near, side, reverse in ((next_up, above, False), (next_down, below, True)):
            beyond = occ & side & ~near
            seen, attackers = beyond, att
            if reverse:  # the highest occupied square below: reverse the bits, as the rays do
                seen = Cat(*reversed([beyond[i] for i in range(8)]))
                attackers = Cat(*reversed([att[i] for i in range(8)]))
            first = seen & (~seen + 1)
            hits.append((occ & near).any() & (first & attackers).any())
        return hits

    @staticmethod
    def _rider_squares(m, q):
        """Clock 2: per knight leap, the squares of the nightrider ray from the tested square,
        nearest first, registered with what the move does to each (gone: vacated; put: now the
        mover's, so a blocker that attacks nothing)."""
        file, rank = q.sq[:3], q.sq[3:]
        rays = []
        for d, (df, dr) in enumerate(KNIGHT_STEPS):
            ray = []
            for k in range(1, NIGHTRIDER_REACH + 1):
                # 4 bits hold -6..13: off the board shows in bit 3, as for the knight squares
                f2 = (file + k * df)[:4]
                r2 = (rank + k * dr)[:4]
                sq2 = Cat(f2[:3], r2[:3])
                name = f"rider{d}_{k}"
                sq_r, on_r = Datum(6, name=f"{name}_sq"), Datum(name=f"{name}_on")
                gone_r, put_r = Datum(name=f"{name}_gone"), Datum(name=f"{name}_put")
                m.d.sync += [
                    sq_r.eq(sq2), on_r.eq(~f2[3] & ~r2[3]),
                    gone_r.eq((q.clr_valid & (q.clr == sq2)) | (q.epc_valid & (q.epc == sq2))),
                    put_r.eq(q.put_valid & (q.put == sq2))]
                ray.append((sq_r, on_r, gone_r, put_r))
            rays.append(ray)
        return rays

    @staticmethod
    def _rider_bits(m, rays, occupied, attackers):
        """Clock 3: each ray square's occupancy and attacker bit from the planes, registered;
        returns per ray, nearest first, (occupied, attacker) with the move applied (clock 4's
        logic, as on the lines). Off the board: neither, and so are the squares beyond it."""
        out = []
        for d, ray in enumerate(rays):
            bits = []
            for k, (sq, on, gone, put) in enumerate(ray, 1):
                name = f"rider{d}_{k}"
                occ_r, att_r = Datum(name=f"{name}_occ_q"), Datum(name=f"{name}_att_q")
                gone_q, put_q = Datum(name=f"{name}_gone_q"), Datum(name=f"{name}_put_q")
                m.d.sync += [occ_r.eq(on & occupied.bit_select(sq, 1)),
                             att_r.eq(on & attackers.bit_select(sq, 1)),
                             gone_q.eq(gone), put_q.eq(on & put)]
                bits.append(((occ_r & ~gone_q) | put_q, att_r & ~gone_q & ~put_q))
            out.append(bits)
        return out

"""The aggressor unit (docs/chip_search.md, "The pipelined thread": stages A1 to A5): for each
victim of the scan its captures, least valuable aggressor first, ties in the slot order of
``SLOTS`` (the capture finder's), one a clock, as the finder's move words.

* A1: the victim's lines (rank, file and diagonals: index and position, attack.py's clock 2),
  its knight, pawn and en passant squares with their on-board bits, whether the own king is
  next to it;
* A2: per line its eight squares' occupancy and the own pieces that ride it (rook or bishop,
  queen), 15:1 line multiplexers (attack.py's clock 3); own knights and pawns on the leaper
  squares;
* A3: per ray the first occupied square and whether it is an own piece of the ray's kind: the
  slot bits and the aggressors' squares, into a queue of two records;
* A4: the lowest slot bit of the head record not yet taken, one-hot (one pick a clock);
* A5: the move: its from-square (AND-OR of the one-hot), to-square and flags, and the
  candidate's own cursor (its victim, its slot + 1).

The aggressors are read from the node's planes with no move applied, as the finder reads them.
A restart drops everything in the unit and takes the cursor the captures go on from: the
cursor's victim gets its aggressors from the cursor's slot on, every later victim all of them.
A victim none is left of (a restart past its last aggressor) costs A4 a clock and gives nothing.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import CAPTURE, EP, PAWN_MOVE
from posdata.engine.search.capture_finder import KNIGHT_STEPS

from ..chip.attack import LINES, AttackPlanes, gather_line, line_index
from ..common.layouts import SQUARE, MoveLayout
from ..common.priority import lowest_one_hot, select
from .finder import QUEEN_PROMOTION, SLOT_BITS, SLOTS
from .victim_scan import Victim

RECORDS = 2  #: the aggressor records queued between A3 and A4

#: a capture's place in the finder's order: its victim (kind, square), its victim's aggressors
#: from ``slot`` on (``vvalid``), or the victims at and after (kind, square) from the first
#: slot (not ``vvalid``: the control's per-ply fields)
Cursor = data.StructLayout({"vkind": 3, "vsq": SQUARE, "vvalid": 1, "slot": SLOT_BITS})

#: a capture candidate: its move word and its own cursor (the next slot of its victim)
Candidate = data.StructLayout({"move": MoveLayout, "vkind": 3, "vsq": SQUARE,
                               "slot": SLOT_BITS})

N = len(SLOTS)
_FLAGS = {"pawn": CAPTURE | PAWN_MOVE, "ep": CAPTURE | EP | PAWN_MOVE}

#: what A3 queues for A4 and A5: the slot bits and the squares the aggressors stand on
Record = data.StructLayout({
    "bits": N,
    "pawn": data.ArrayLayout(SQUARE, 2), "ep": data.ArrayLayout(SQUARE, 2),
    "knight": data.ArrayLayout(SQUARE, 8), "ray": data.ArrayLayout(SQUARE, 8),
    "v": SQUARE, "kind": 3,
})


def _step(sq, df, dr):
    """The square ``sq`` + (df, dr) (|df|, |dr| <= 2; ``dr`` may be a Value) and whether it is
    on the board: off it shows in bit 3 of the 4-bit file or rank."""
    f2, r2 = (sq[:3] + df)[:4], (sq[3:] + dr)[:4]
    return Cat(f2[:3], r2[:3]), ~f2[3] & ~r2[3]


def _encode(one_hot):
    """The index of the bit set in an 8-bit one-hot value."""
    return Cat(*(Cat(*(one_hot[j] for j in range(8) if j >> b & 1)).any() for b in range(3)))


def _two_or_more(bits):
    """Whether two bits or more of ``bits`` are set: per group of four whether any and whether
    two are, then the same over the groups (a tree, not a count)."""
    level = [(bits[i:i + 4].any(), _pair(bits[i:i + 4])) for i in range(0, len(bits), 4)]
    while len(level) > 1:
        groups = [level[i:i + 4] for i in range(0, len(level), 4)]
        level = [(Cat(*(a for a, _ in g)).any(),
                  Cat(*(t for _, t in g)).any() | _pair(Cat(*(a for a, _ in g)))) for g in groups]
    return level[0][1]


def _pair(bits):
    """Whether some two of a few bits are both set."""
    return Cat(*(bits[i] & bits[j] for i in range(len(bits))
                 for j in range(i + 1, len(bits)))).any()


class AggressorUnit(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes); side : In(1); ep_valid : In(1); ep_sq : In(SQUARE)
        The node: its board, side to move and en passant square, unchanged from a restart on.
    restart : In(stream.Signature(Cursor))   drop everything, go on from this cursor
    victims : In(stream.Signature(Victim))   the victims in the finder's order
    candidates : Out(stream.Signature(Candidate))   their captures, in the finder's order
    idle : Out(1)       nothing in the unit (the next candidate needs a victim)
    """

    planes: In(AttackPlanes)
    side: In(1)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    restart: In(stream.Signature(Cursor, always_ready=True))
    victims: In(stream.Signature(Victim))
    candidates: Out(stream.Signature(Candidate))
    idle: Out(1)

    def elaborate(self, platform):
        m = Module()
        p, side, go = self.planes, self.side, self.restart.valid
        own = Mux(side, p.black, p.occupied & ~p.black)

        # the restart's cursor; the slots its victim still has (``floor``)
        cursor = Signal(Cursor)
        floor = Signal(N)
        with m.If(go):
            c = self.restart.payload
            m.d.sync += [cursor.eq(c),
                         floor.eq(Cat(*(c.slot <= i for i in range(N))))]

        # the pipeline's flow: A3 writes a record unless both are taken; A1 and A2 hold theirs
        # while the stage after them holds its own
        valid1, valid2, valid4, valid5 = Signal(), Signal(), Signal(), Signal()
        level = Signal(range(RECORDS + 1))
        full = level == RECORDS
        free2 = ~valid2 | ~full
        free1 = ~valid1 | free2
        adv5 = ~valid5 | self.candidates.ready
        adv4 = ~valid4 | adv5
        m.d.comb += [self.victims.ready.eq(free1 & ~go),
                     self.idle.eq(~valid1 & ~valid2 & (level == 0) & ~valid4 & ~valid5)]

        s1 = self._a1(m, cursor, floor, valid1, free1, go)
        rec3 = self._a3(m, self._a2(m, s1, own, valid1, valid2, free2, go))

        # --- the records; A4: the pick ----------------------------------------------------------
        entries = [Signal(Record, name=f"record{i}") for i in range(RECORDS)]
        wp, rp = Signal(range(RECORDS)), Signal(range(RECORDS))
        taken = Signal(N)
        head = Signal(Record)
        m.d.comb += head.eq(Mux(rp, entries[1], entries[0]))
        avail = Signal(N)
        m.d.comb += avail.eq(head.bits & ~taken)
        pick = lowest_one_hot(m, avail, "pick")
        more = _two_or_more(avail)  # beside the pick, not after it: the head stays or goes
        present = level != 0
        write = valid2 & ~full
        pop = present & adv4 & ~more
        s4 = Signal(Record)  # the picked slot one-hot in ``bits``
        with m.If(go):
            m.d.sync += [level.eq(0), wp.eq(0), rp.eq(0), taken.eq(0), valid4.eq(0),
                         valid5.eq(0)]
        with m.Else():
            for i, entry in enumerate(entries):
                with m.If(write & (wp == i)):
                    m.d.sync += entry.eq(rec3)
            m.d.sync += [wp.eq(wp + write), rp.eq(rp + pop), level.eq(level + write - pop)]
            with m.If(adv4):
                m.d.sync += [valid4.eq(present & avail.any()), s4.eq(head), s4.bits.eq(pick)]
                with m.If(present):
                    m.d.sync += taken.eq(Mux(more, taken | pick, 0))
            with m.If(adv5):
                m.d.sync += valid5.eq(valid4)
        # --- A5: the move -----------------------------------------------------------------------
        with m.If(adv5):
            m.d.sync += self.candidates.payload.eq(self._a5(m, s4))
        m.d.comb += self.candidates.valid.eq(valid5)
        return m

    def _a1(self, m, cursor, floor, valid1, free1, go):
        """A1: the victim's lines and leaper squares, registered while A1 is free."""
        p, side, v = self.planes, self.side, self.victims.payload
        s1 = {"v": Signal(SQUARE, name="a1_v"), "kind": Signal(3, name="a1_kind"),
              "allowed": Signal(N, name="a1_allowed"), "king": Signal(name="a1_king")}
        sq = v.sq
        ep_victim = Mux(side, self.ep_sq + 8, self.ep_sq - 8)[:6]
        is_ep = self.ep_valid & (sq == ep_victim)
        mine = cursor.vvalid & (v.kind == cursor.vkind) & (sq == cursor.vsq)
        king = p.king[side]
        kdf, kdr = (king[:3] - sq[:3])[:4], (king[3:] - sq[3:])[:4]
        near = lambda d: (d == 0) | (d == 1) | (d == 15)  # noqa: E731
        now = [s1["v"].eq(sq), s1["kind"].eq(v.kind),
               s1["allowed"].eq(Mux(mine, floor, Const((1 << N) - 1, N))),
               s1["king"].eq(near(kdf) & near(kdr) & (king != sq))]
        for kind in LINES:
            index, pos = line_index(kind, sq)
            s1[f"{kind}_index"] = Signal(4, name=f"a1_{kind}_index")
            s1[f"{kind}_pos"] = Signal(3, name=f"a1_{kind}_pos")
            now += [s1[f"{kind}_index"].eq(index), s1[f"{kind}_pos"].eq(pos)]
        # the files of the diagonals' squares by position (rank): the hit squares in A3 by
        # AND-OR, not by an adder after the first-occupied search
        vf, vr = sq[:3], sq[3:]
        for kind, file_at in (("diag", lambda j: (vf - vr + j)[:3]),
                              ("anti", lambda j: (vf + vr - j)[:3])):
            s1[f"{kind}_files"] = Signal(24, name=f"a1_{kind}_files")
            now.append(s1[f"{kind}_files"].eq(Cat(*(file_at(j) for j in range(8)))))
        leapers = [("knight", i, *KNIGHT_STEPS[i]) for i in range(8)]
        leapers += [("pawn", i, (-1, 1)[i], Mux(side, 1, -1)) for i in range(2)]
        leapers += [("ep", i, (-1, 1)[i], 0) for i in range(2)]
        for name, i, df, dr in leapers:
            square, on = _step(sq, df, dr)
            s1[f"{name}{i}_sq"] = Signal(SQUARE, name=f"a1_{name}{i}_sq")
            s1[f"{name}{i}_on"] = Signal(name=f"a1_{name}{i}_on")
            now += [s1[f"{name}{i}_sq"].eq(square),
                    s1[f"{name}{i}_on"].eq(on & is_ep if name == "ep" else on)]
        with m.If(go):
            m.d.sync += valid1.eq(0)
        with m.Elif(free1):
            m.d.sync += [valid1.eq(self.victims.valid)] + now
        return s1

    def _a2(self, m, s1, own, valid1, valid2, free2, go):
        """A2: the lines' squares and the leaper squares read from the planes."""
        p = self.planes
        riders = {"lone_orth": p.orth & ~p.diag & own, "lone_diag": p.diag & ~p.orth & own,
                  "queen": p.orth & p.diag & own}
        # carried: all but what A2 reads (the lines' indexes, the leapers' on-board bits)
        s2 = {k: Signal(len(v), name=f"a2_{k}") for k, v in s1.items()
              if not k.endswith(("_index", "_on"))}
        now = [s2[k].eq(s1[k]) for k in s2]
        for kind in LINES:
            lone = riders["lone_orth" if kind in ("rank", "file") else "lone_diag"]
            for what, plane in (("occ", p.occupied), ("lone", lone), ("queen", riders["queen"])):
                bits = gather_line(m, plane, kind, s1[f"{kind}_index"], f"a2_{kind}_{what}_in")
                s2[f"{kind}_{what}"] = Signal(8, name=f"a2_{kind}_{what}")
                now.append(s2[f"{kind}_{what}"].eq(bits))
            # the line's own index: the rank of a rank, the file of a file
            s2[f"{kind}_line"] = Signal(3, name=f"a2_{kind}_line")
            now.append(s2[f"{kind}_line"].eq(s1[f"{kind}_index"][:3]))
        pieces = {"knight": p.knight & own, "pawn": p.pawn & own, "ep": p.pawn & own}
        for name, count in (("knight", 8), ("pawn", 2), ("ep", 2)):
            for i in range(count):
                s2[f"{name}{i}_bit"] = Signal(name=f"a2_{name}{i}_bit")
                now.append(s2[f"{name}{i}_bit"].eq(
                    s1[f"{name}{i}_on"] & pieces[name].bit_select(s1[f"{name}{i}_sq"], 1)))
        with m.If(go):
            m.d.sync += valid2.eq(0)
        with m.Elif(free2):
            m.d.sync += [valid2.eq(valid1)] + now
        return s2

    def _a3(self, m, s2):
        """A3: per ray the first occupied square; the slot bits and squares (a record)."""
        hits, squares = {}, []
        for kind in LINES:
            occ, pos = s2[f"{kind}_occ"], s2[f"{kind}_pos"]
            up = occ & (Const(0xFE, 8) << pos)[:8]
            down = occ & ~(Const(0xFF, 8) << pos)[:8]
            first_up = lowest_one_hot(m, up, f"a3_{kind}_up")
            # towards lower positions: the highest occupied square below, bits reversed
            rev = lowest_one_hot(m, Cat(*reversed(list(down))), f"a3_{kind}_down")
            first_down = Cat(*reversed(list(rev)))
            for first in (first_up, first_down):
                d = len(squares)
                hits[d] = ((first & s2[f"{kind}_lone"]).any(), (first & s2[f"{kind}_queen"]).any())
                at, line = _encode(first), s2[f"{kind}_line"]
                if kind == "rank":
                    squares.append(Cat(at, line))
                elif kind == "file":
                    squares.append(Cat(line, at))
                else:
                    files = s2[f"{kind}_files"]
                    squares.append(Cat(select(first, [files[3 * j:3 * j + 3] for j in range(8)]),
                                       at))
        bits = []
        for name, i in SLOTS:
            if name in ("pawn", "ep", "knight"):
                bits.append(s2[f"{name}{i}_bit"])
            elif name == "king":
                bits.append(s2["king"])
            else:
                bits.append(hits[i][name == "queen"])
        rec = Signal(Record, name="a3_record")
        m.d.comb += [rec.bits.eq(Cat(*bits) & s2["allowed"]), rec.v.eq(s2["v"]),
                     rec.kind.eq(s2["kind"])]
        for name, count in (("knight", 8), ("pawn", 2), ("ep", 2)):
            m.d.comb += [rec[name][i].eq(s2[f"{name}{i}_sq"]) for i in range(count)]
        m.d.comb += [rec.ray[d].eq(squares[d]) for d in range(8)]
        return rec

    def _a5(self, m, s4):
        """A5: the candidate of the picked slot."""
        pick, side = s4.bits, self.side
        froms = []
        last_rank = s4.v[3:] == Mux(side, 0, 7)
        for i, (name, j) in enumerate(SLOTS):
            if name in ("pawn", "ep", "knight"):
                froms.append(s4[name][j])
            elif name == "king":
                froms.append(self.planes.king[side])
            else:
                froms.append(s4.ray[j])
        pawn = Cat(*(pick[i] for i, (name, _) in enumerate(SLOTS) if name == "pawn")).any()
        ep = Cat(*(pick[i] for i, (name, _) in enumerate(SLOTS) if name == "ep")).any()
        word = Mux(pawn, Mux(last_rank, _FLAGS["pawn"] | QUEEN_PROMOTION, _FLAGS["pawn"]),
                   Mux(ep, _FLAGS["ep"], CAPTURE)) >> 12
        out = Signal(Candidate, name="a5_candidate")
        m.d.comb += [
            out.move.as_value().eq(Cat(select(pick, froms), Mux(ep, self.ep_sq, s4.v),
                                       word[:9])),
            out.vkind.eq(s4.kind), out.vsq.eq(s4.v),
            out.slot.eq(select(pick, [Const(i + 1, SLOT_BITS) for i in range(N)])),
        ]
        return out

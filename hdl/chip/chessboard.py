"""A perft thread's board: the generator's colour planes and piece memory (as
``hdl.gen.chessboard``), plus what the legality unit reads: one plane per kind of attacker and the
two kings' squares.

Every plane is a 64-bit register so the attack unit can gather any rank, file or diagonal in
one clock; pieces also live in a small memory (one entry per square) for the prefetcher and for
make/unmake, which read single squares. One square is written per clock (from the host while
loading, from make/unmake while counting); nothing is reset, so the board is whatever was last
written.

A write is registered before it is made: the square written and its contents are chosen by the
thread's control from many sources (the move, the undo record, the rook's squares), and that
choice, followed by a 64-way decode and every plane's update, would not fit in one clock. So a
write shows in the planes (and the piece memory) two clocks after it is asked for, not one.
"""

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.capabilities import refusal
from posdata.engine.rules.defs import BLACK, KING, PAWN, WHITE, Color
from posdata.engine.rules.pieces import AttackKind
from posdata.engine.rules.variants import CHESS, get_variant

from ..common.layouts import PIECE, SQUARE
from ..gen.chessboard import PieceLookup, Planes
from .attack import OPTIONAL_PLANES, attack_planes

#: attacker plane -> the attack kind that puts a piece in it
PLANE_KINDS = {"orth": AttackKind.ORTHOGONAL_RIDER, "diag": AttackKind.DIAGONAL_RIDER,
               "knight": AttackKind.KNIGHT_LEAPER}
#: planes built only for a variant with that kind (hdl.chip.attack's nightrider rays, leapers
#: and hops); without modes the pawns' plane holds the pawns (a code of their own)
OPTIONAL_PLANE_KINDS = {"nightrider": AttackKind.KNIGHT_RIDER, "pawn": AttackKind.PAWN,
                        "ferz": AttackKind.FERZ_STEP, "wazir": AttackKind.WAZIR_STEP,
                        "alfil": AttackKind.ALFIL_LEAPER, "dabbaba": AttackKind.DABBABA_LEAPER,
                        "fwazir": AttackKind.FORWARD_WAZIR,
                        "hop_orth": AttackKind.HOP_ORTHOGONAL, "hop_diag": AttackKind.HOP_DIAGONAL}
#: the planes every variant with modes has, used or not: its pieces are data (the walk image
#: and which codes go into which plane), so that one chip's RTL serves all of them
MODES_PLANES = ("pawn", "ferz", "wazir", "alfil", "dabbaba", "fwazir", "hop_orth", "hop_diag")
#: what the legality unit answers for: the planes, the kings' squares, the pawns' plane
SUPPORTED_KINDS = (AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER
                   | AttackKind.KNIGHT_LEAPER | AttackKind.KNIGHT_RIDER | AttackKind.KING_STEP
                   | AttackKind.PAWN | AttackKind.FERZ_STEP | AttackKind.WAZIR_STEP
                   | AttackKind.ALFIL_LEAPER | AttackKind.DABBABA_LEAPER
                   | AttackKind.FORWARD_WAZIR | AttackKind.HOP_ORTHOGONAL
                   | AttackKind.HOP_DIAGONAL)


#: one square written: its colour and piece
SquareWrite = wiring.Signature({"en": Out(1), "sq": Out(SQUARE), "color": Out(Color),
                                "piece": Out(PIECE)})


class UnsupportedVariant(ValueError):
    """A variant whose pieces attack in a way the chip's legality unit cannot see; one line."""


def plane_codes(variant=CHESS) -> dict[str, tuple[int, ...]]:
    """Per attacker plane, the piece codes in it (ascending); refuses kinds without a plane.
    A code means one piece kind for both colours (engine.rules.variants), so the planes are per
    code. An optional plane (``OPTIONAL_PLANE_KINDS``) is listed when some piece is in it, and
    ``MODES_PLANES`` always for a variant with modes."""
    variant = get_variant(variant)
    kinds_of = {**PLANE_KINDS, **OPTIONAL_PLANE_KINDS}
    out = {name: [] for name in kinds_of}
    for p in variant.pieces:
        kinds = {variant.attack_kinds(c, p.code) for c in (WHITE, BLACK)}
        assert len(kinds) == 1, "a code attacks alike for both colours"
        kind = kinds.pop()
        unsupported = kind & ~SUPPORTED_KINDS
        if unsupported or (kind & AttackKind.KING_STEP and p.code != KING):
            # the declaration's line (engine.rules.capabilities), which a test holds to this check
            raise UnsupportedVariant(
                refusal(variant, "hw") or f"the perft chip's legality unit cannot test "
                f"{variant.name}'s {p.name} ({(unsupported or AttackKind.KING_STEP).name})")
        for name, plane_kind in kinds_of.items():
            if kind & plane_kind:
                out[name].append(p.code)
    kept = set(PLANE_KINDS) | (set(MODES_PLANES) if variant.has_modes else set())
    if not variant.has_modes:
        out["pawn"] = []  # the pawns' own plane (PerftBoard), as Sandström's geometry had it
    return {name: tuple(sorted(codes)) for name, codes in out.items()
            if codes or name in kept}


def check_chip(variant=CHESS) -> None:
    """The perft chip's own refusal, the declaration's line (engine.rules.capabilities): its
    legality unit's planes (its engines walk Sandström's tables or, with modes, the walk
    image: hdl.chip.modes)."""
    plane_codes(variant)


def optional_planes(variant=CHESS) -> tuple[str, ...]:
    """The optional attacker planes the legality unit reads for ``variant``."""
    return tuple(name for name in plane_codes(variant) if name in OPTIONAL_PLANES)


class PerftBoard(wiring.Component):
    """Ports
    -----
    write : In(SquareWrite)
        One square per clock.
    planes : Out(Planes)
        Colour planes for the generator core.
    attack : Out(hdl.chip.attack.attack_planes(...))
        Attacker planes (a nightrider plane too, for a variant with nightriders) and king
        squares for the attack unit.
    lookup, probe_a, probe_b : In(PieceLookup)
        Combinational reads of one square's piece each (the prefetcher's; make/unmake's two).

    Parameters
    ----------
    variant : engine.rules.variants name: which codes go into which attacker plane
    """

    def __init__(self, variant=CHESS):
        self._planes = plane_codes(variant)
        # optional planes only for a variant with their pieces: orthodox ports as they were
        attack = attack_planes(optional_planes(variant))
        super().__init__({
            "write": In(SquareWrite), "planes": Out(Planes), "attack": Out(attack),
            "lookup": In(PieceLookup), "probe_a": In(PieceLookup), "probe_b": In(PieceLookup),
        })

    def elaborate(self, platform):
        m = Module()
        wr_en = Signal()
        wr_sq = Signal(SQUARE)
        color = Signal(Color)
        piece = Signal(PIECE)
        w = self.write
        m.d.sync += [wr_en.eq(w.en), wr_sq.eq(w.sq), color.eq(w.color), piece.eq(w.piece)]
        mask = Signal(64)
        m.d.comb += mask.eq(Const(1, 64) << wr_sq)
        occupied = color != Color.EMPTY
        # per plane: what the written square becomes in it. Which codes go into which attacker
        # plane is a table, not logic, so that variants differing only in it are the same RTL
        # but for memory contents (one compiled model serves them: sim.models.memory_images);
        # synthesis folds the constant table into the same LUTs
        names = list(self._planes)
        m.submodules.kinds = kinds = Memory(
            shape=len(names), depth=1 << PIECE.width,
            init=[sum(1 << i for i, name in enumerate(names) if code in self._planes[name])
                  for code in range(1 << PIECE.width)],
            attrs={"rom_style": "logic"})
        kind = kinds.read_port(domain="comb")
        m.d.comb += kind.addr.eq(piece)
        values = {"empty": ~occupied, "black": color == Color.BLACK,
                  **{name: occupied & kind.data[i] for i, name in enumerate(names)
                     if name != "pawn"},
                  # with modes the pawns' plane is the table's: a berolina pawn is not in it
                  "pawn": occupied & (kind.data[names.index("pawn")] if "pawn" in names
                                      else piece == PAWN)}
        planes = {}
        for name, value in values.items():
            plane = Signal(64, name=name, reset_less=True, init=(1 << 64) - 1 if name == "empty"
                           else 0)
            with m.If(wr_en):
                m.d.sync += plane.eq(Mux(value, plane | mask, plane & ~mask))
            planes[name] = plane
        kings = [Signal(SQUARE, name=f"king{c}", reset_less=True) for c in range(2)]
        for c, king in enumerate(kings):
            with m.If(wr_en & (piece == KING) & (color == c)):
                m.d.sync += king.eq(wr_sq)

        m.d.comb += [
            self.planes.empty.eq(planes["empty"]),
            self.planes.black.eq(planes["black"]),
            self.attack.occupied.eq(~planes["empty"]),
            self.attack.black.eq(planes["black"]),
            self.attack.orth.eq(planes["orth"]),
            self.attack.diag.eq(planes["diag"]),
            self.attack.knight.eq(planes["knight"]),
            self.attack.pawn.eq(planes["pawn"]),
            self.attack.king[0].eq(kings[0]),
            self.attack.king[1].eq(kings[1]),
        ]
        for name in (n for n in OPTIONAL_PLANES if n in self._planes):
            m.d.comb += getattr(self.attack, name).eq(planes[name])

        m.submodules.pieces = pieces = Memory(shape=PIECE, depth=64, init=[])
        wr = pieces.write_port()
        m.d.comb += [wr.addr.eq(wr_sq), wr.data.eq(piece), wr.en.eq(wr_en)]
        for port in (self.lookup, self.probe_a, self.probe_b):
            rd = pieces.read_port(domain="comb")
            m.d.comb += [rd.addr.eq(port.sq), port.piece.eq(rd.data)]
        return m

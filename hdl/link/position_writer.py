"""What the move generator (or the perft chip) sees of the position, in registers: a square write
port, pulsed a square a clock, and the root's state. LOAD's and UPDATE's payloads come here a
byte per clock from ``hdl.link.cursor.PayloadCursor``, once ``hdl.link.arguments`` has found
every byte in range; a front end's own copy of the position comes here square by square
(power-up, and the perft chip's board after an ABORT).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, WHITE
from posdata.engine.rules.pieces import parse_piece

from ..common.contract import CODE_BITS
from ..common.layouts import Position
from .cursor import PayloadByte


def passed_victim(side: int, ep_sq: int) -> int:
    """The writer's en passant victim: the square beyond the one passed, a rank toward the side
    that just moved (``side`` is to move)."""
    return (ep_sq + (8 if side == BLACK else -8)) & 63


def victim_follows(variant) -> bool:
    """Does ``passed_victim`` find the pawn that passed, for every double step of ``variant``'s
    pawn (the orthodox pawn's; one that passes diagonally, Berolina's, stands elsewhere)?"""
    if variant.pawn is None:
        return True
    for mover in (WHITE, BLACK):
        for c in parse_piece(variant.pawn, pawn=True).components:
            for df, dr in c.steps(mover) if c.initial else ():
                for ep in range(64):  # every square passed from which the step stays on board
                    if 0 <= (ep & 7) + df // 2 < 8 and 0 <= (ep >> 3) + dr // 2 < 8:
                        pawn = ep + df // 2 + 8 * (dr // 2)
                        if passed_victim(mover ^ 1, ep) != pawn:
                            return False
    return True


class PositionWriter(wiring.Component):
    """Parameters
    ----------
    root_init : dict
        The root's power-up state (``Position``'s fields).
    layout : data.StructLayout
        The root's layout: ``Position``, or the chip's with modes (``hdl.chip.modes``), whose
        en passant victim protocol 3 does not carry: it is written with the en passant square,
        ``passed_victim`` of it (``victim_follows`` says for which variants that holds).

    Ports
    -----
    current : In(PayloadByte)
        The payload byte in hand (``byte``) and its place (``index``).
    load : In(1)
        The payload is LOAD's (else UPDATE's).
    write : In(1)
        Write ``byte``: a square (``wr_*`` in the next clock) or a state byte.
    copy : In(1); copy_sq : In(6); copy_code : In(CODE_BITS)
        Write square ``copy_sq`` with ``copy_code`` (in the next clock).
    wr_en : Out(1); wr_sq : Out(6); wr_code : Out(CODE_BITS)
        The board's write port: a square and its code (colour | piece << 2) while ``wr_en``.
    root : Out(layout)
        Side to move, castling rights, en passant square (and its victim).
    """

    def __init__(self, root_init: dict, layout=Position):
        self._victim = "ep_victim" in layout.members
        if self._victim:
            root_init = {**root_init, "ep_victim": passed_victim(
                root_init["side"], root_init["ep_sq"]) if root_init["ep_valid"] else 0}
        super().__init__({
            "current": In(PayloadByte), "load": In(1), "write": In(1),
            "copy": In(1), "copy_sq": In(6), "copy_code": In(CODE_BITS),
            "wr_en": Out(1), "wr_sq": Out(6), "wr_code": Out(CODE_BITS),
            "root": Out(layout, init=root_init),
        })

    def elaborate(self, platform):
        m = Module()
        byte, j, root = self.current.byte, self.current.index, self.root
        pair_sq = Signal(6)  # UPDATE: the square of the pair being read

        def write_square(sq, code):
            m.d.sync += [self.wr_en.eq(1), self.wr_sq.eq(sq), self.wr_code.eq(code)]

        def set_state(first):
            """A state byte: ``first`` the side/castle byte, else the en passant byte."""
            if first:
                m.d.sync += [root.side.eq(byte[0]), root.castle.eq(byte[1:5])]
            else:
                m.d.sync += [root.ep_valid.eq(byte[7]), root.ep_sq.eq(byte[:6])]
                if self._victim:  # the side byte came first: root.side is this payload's
                    rank = byte[3:6]
                    victim = Cat(byte[:3], Mux(root.side == BLACK, rank + 1, rank - 1)[:3])
                    # 0 without en passant, as the host's root word has it
                    m.d.sync += root.ep_victim.eq(Mux(byte[7], victim, 0))

        m.d.sync += self.wr_en.eq(0)
        with m.If(self.write):
            with m.If(self.load):
                with m.If(j < 64):
                    write_square(j, byte)
                with m.Elif(j == 64):
                    set_state(True)
                with m.Else():
                    set_state(False)
            with m.Else():
                with m.If(j == 0):
                    set_state(True)
                with m.Elif(j == 1):
                    set_state(False)
                with m.Elif(~j[0]):
                    m.d.sync += pair_sq.eq(byte)
                with m.Else():
                    write_square(pair_sq, byte)
        with m.If(self.copy):
            write_square(self.copy_sq, self.copy_code)
        return m

"""What the move generator (or the perft chip) sees of the position, in registers: a square write
port, pulsed a square a clock, and the root's state. LOAD's and UPDATE's payloads come here a
byte per clock from ``hdl.link.cursor.PayloadCursor``, once ``hdl.link.arguments`` has found
every byte in range; a front end's own copy of the position comes here square by square
(power-up, and the perft chip's board after an ABORT).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..common.contract import CODE_BITS
from ..common.layouts import Position
from .cursor import PayloadByte
from .protocol import STATE_BYTES, VICTIM_BYTE


class PositionWriter(wiring.Component):
    """Parameters
    ----------
    root_init : dict
        The root's power-up state (``Position``'s fields, and ``ep_victim``).
    layout : data.StructLayout
        The root's layout: ``Position``, or the chip's with modes (``hdl.chip.modes``), which
        takes en passant's victim from its state byte (Berolina's pawn passes diagonally, so
        the victim does not follow from the en passant square); ``Position`` ignores the byte.

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
        root_init = {k: v for k, v in root_init.items() if k in layout.members}
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

        def set_state(k):
            """State byte ``k``: side and castling, en passant, en passant's victim."""
            if k == 0:
                m.d.sync += [root.side.eq(byte[0]), root.castle.eq(byte[1:5])]
            elif k == VICTIM_BYTE:
                if self._victim:  # checked: 0 without an en passant square, as the host's root
                    m.d.sync += root.ep_victim.eq(byte[:6])
            else:
                m.d.sync += [root.ep_valid.eq(byte[7]), root.ep_sq.eq(byte[:6])]

        m.d.sync += self.wr_en.eq(0)
        with m.If(self.write):
            with m.If(self.load):
                with m.If(j < 64):
                    write_square(j, byte)
                for k in range(STATE_BYTES):
                    with m.Elif(j == 64 + k):
                        set_state(k)
            with m.Else():
                for k in range(STATE_BYTES):
                    with (m.Elif if k else m.If)(j == k):
                        set_state(k)
                with m.Elif(j[0] == STATE_BYTES % 2):  # a pair's square
                    m.d.sync += pair_sq.eq(byte)
                with m.Else():
                    write_square(pair_sq, byte)
        with m.If(self.copy):
            write_square(self.copy_sq, self.copy_code)
        return m

"""A command's arguments checked byte by byte (``hdl.link.protocol``: BAD_ARGUMENT), before anything
changes: LOAD's square codes and state bytes, UPDATE's state bytes and (square, square code)
pairs, and on the perft chip's board PERFT's depth, flags and split.

A byte at a time from ``hdl.link.cursor.PayloadCursor``: each compare is on one registered byte,
not on the whole payload at the end (PERFT's arguments compared together ran through a carry
chain into the start of a count).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS

from ..common.contract import MAX_DEPTH, valid_square_codes
from .cursor import PayloadByte
from .protocol import FLAG_BULK, STATE_BYTES, VICTIM_BYTE


class ArgumentCheck(wiring.Component):
    """Parameters
    ----------
    variant : engine.rules.variants.Variant
        Whose square codes LOAD and UPDATE accept (its pieces, either colour, or an empty
        square).
    perft : bool
        PERFT's arguments too, kept for the count (``depth``, ``flags``, ``split``).

    Ports
    -----
    current : In(PayloadByte)
        The payload byte in hand (``byte``) and its place (``index``).
    load, update : In(1)
        The payload is LOAD's, UPDATE's (one at most).
    perft : In(1)
        The payload is PERFT's (with ``perft``).
    clear : In(1)
        A new command: nothing found wrong yet.
    check : In(1)
        Judge ``byte``.
    bad : Out(1)
        A byte judged since ``clear`` was out of range.
    depth, flags, split : Out(8)
        PERFT's arguments (with ``perft``).
    """

    def __init__(self, variant=CHESS, *, perft: bool = False):
        self._codes = sorted(valid_square_codes(variant))
        self._perft = perft
        ports = {"current": In(PayloadByte), "load": In(1), "update": In(1),
                 "clear": In(1), "check": In(1), "bad": Out(1)}
        if perft:
            ports.update({"perft": In(1), "depth": Out(8), "flags": Out(8), "split": Out(8)})
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        byte, j, bad = self.current.byte, self.current.index, self.bad
        self._ep_given = Signal()  # the en passant byte just checked named a square
        valid_code = Signal()
        with m.Switch(byte):
            with m.Case(*self._codes):
                m.d.comb += valid_code.eq(1)
        with m.If(self.clear):
            m.d.sync += bad.eq(0)
        with m.If(self.check):
            if self._perft:
                with m.If(self.perft):
                    self._perft_byte(m)
            with m.If(self.load):
                with m.If(j < 64):
                    m.d.sync += bad.eq(bad | ~valid_code)
                for k in range(STATE_BYTES):
                    with m.Elif(j == 64 + k):
                        self._state_byte(m, k)
            with m.Elif(self.update):
                for k in range(STATE_BYTES):
                    with (m.Elif if k else m.If)(j == k):
                        self._state_byte(m, k)
                with m.Elif(j[0] == STATE_BYTES % 2):  # a pair's square
                    m.d.sync += bad.eq(bad | (byte[6:] != 0))
                with m.Else():
                    m.d.sync += bad.eq(bad | ~valid_code)
        return m

    def _state_byte(self, m, k: int):
        """State byte ``k``: side | castle << 1, en passant, en passant's victim (their reserved
        bits zero; the victim 0 without an en passant square, one position one encoding)."""
        byte, bad = self.current.byte, self.bad
        if k == 0:
            m.d.sync += bad.eq(bad | (byte[5:] != 0))
        elif k == VICTIM_BYTE - 1:  # en passant: whether the victim byte may name a square
            m.d.sync += [bad.eq(bad | byte[6]), self._ep_given.eq(byte[7])]
        else:
            assert k == VICTIM_BYTE
            m.d.sync += bad.eq(bad | (byte[6:] != 0) | ~self._ep_given & (byte != 0))

    def _perft_byte(self, m):
        byte, bad = self.current.byte, self.bad
        with m.Switch(self.current.index):
            with m.Case(0):
                m.d.sync += [self.depth.eq(byte), bad.eq(bad | (byte > MAX_DEPTH))]
            with m.Case(1):
                m.d.sync += [self.flags.eq(byte), bad.eq(bad | (byte & ~FLAG_BULK).any())]
            with m.Case(2):
                split_ok = (byte == 0) | (byte < self.depth)
                m.d.sync += [self.split.eq(byte), bad.eq(bad | ~split_ok)]

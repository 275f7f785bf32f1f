"""The move generator alone behind the board's command protocol (``hdl.link.protocol``, version 4):
the iCEBreaker's board, where the perft chip does not fit; GENERATE on the command shell
(``hdl.link.command_shell``).

::

    rx -> HostLink -- frame --> CommandShell --(squares, state)--> MoveGenerator
                                 |  + GENERATE                         | moves (twice)
                                 |                                     v
    tx <- HostLink <- ReplyShifter <- PING, the listing's header <- TwoPassListing

It speaks the protocol's commands that need no perft chip: PING (0 engines, 0 threads, no
self-test: what this board has), LOAD, UPDATE and GENERATE. PERFT, LEGAL, STATUS and ABORT are
answered ``Err.UNSUPPORTED``. The engine byte may be 0 (the generator) or ``ENGINE_ALL``.

A listing is generated twice instead of being buffered (``hdl.link.two_pass_listing``); the next
command waits until the generator is idle.
"""

from amaranth import Cat, Const
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..common.contract import SQUARES
from ..gen.movegen import MoveGenerator
from .command_shell import CommandShell
from .judge import flag
from .link import HostLink
from .protocol import LISTING_HEADER, PING_BYTES, Cmd, Err, SelfTest, ping_payload
from .two_pass_listing import TwoPassListing

#: what this board answers; the other commands need the perft chip
SUPPORTED = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE})
SHIFT_BYTES = max(PING_BYTES, LISTING_HEADER)


class GeneratorFrontEnd(CommandShell):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit (the clock must be a whole multiple of the baud rate on the
        iCEBreaker: ``hdl.boards.ice40_pll.exact_divisor``); at least 4.
    frame_timeout : int or None
        Clocks without a byte after which a half-received command is dropped (default:
        ``FRAME_TIMEOUT_BYTES`` byte times).

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    busy : Out(1)
        The generator is listing, a clock later (for an LED).
    self_test : Out(2)
        Always ``SelfTest.NONE`` (the same ports as ``hdl.link.chip_frontend.UartFrontEnd``, so the
        compiled board's line model drives either).
    """

    rx: In(1, init=1)
    tx: Out(1, init=1)
    busy: Out(1)
    self_test: Out(2)

    engines = 0   #: PING: no perft engine
    threads = 0

    def __init__(self, divisor: int, *, frame_timeout: int | None = None):
        # the iCE40's timing: the link's paths start at registers (hdl.link.link); its judge
        # takes engine 0 (the generator) or ENGINE_ALL
        link = HostLink(divisor, frame_timeout, engines=1, supported=SUPPORTED, registered=True)
        # no LUT RAM on the iCE40: the merger's FIFOs with registered heads, the pieces in
        # planes of flip-flops with the next piece's type found beside its square, the walker's
        # colour lookup over two stages (same moves, same clocks; hdl.gen.movegen). The typed
        # scanner's registers lag the board by a clock: a start never comes in the clock after
        # a board write here (tests/hdl/boards/test_icebreaker.py checks it on every clock)
        self.gen = MoveGenerator(registered_heads=True, typed_scan=True, split_lookup=True)
        # the board's power-up position is all it keeps: LOAD and UPDATE write the generator's
        super().__init__(link, shift_bytes=SHIFT_BYTES, registered=True, copy=False)

    def _build(self, m, s):
        writer, shifter = s.writer, s.shifter
        m.submodules.gen = gen = self.gen
        m.submodules.listing = listing = TwoPassListing()
        self._listing = listing
        m.d.comb += self.self_test.eq(SelfTest.NONE)

        # what the generator sees: registers only
        root = writer.root
        m.d.comb += [gen.wr_en.eq(writer.wr_en), gen.wr_sq.eq(writer.wr_sq),
                     gen.wr_color.eq(writer.wr_code[:2]), gen.wr_piece.eq(writer.wr_code[2:]),
                     gen.side.eq(root.side), gen.castle.eq(root.castle),
                     gen.ep_valid.eq(root.ep_valid), gen.ep_sq.eq(root.ep_sq),
                     gen.start.eq(listing.start), listing.gen_cycles.eq(gen.cycles)]
        wiring.connect(m, gen.moves, listing.moves)

        # the listing's words into the reply
        m.d.comb += [shifter.word_load.eq(listing.word_load), shifter.word_data.eq(listing.word),
                     listing.payload_empty.eq(shifter.empty)]

    def _busy(self, s):
        return self.gen.busy

    def _power_up(self, m, s):
        """The initial position into the generator's board, a square a clock (read in the clock
        of its address)."""
        with m.State("Power-Up"):
            m.d.comb += [s.writer.copy.eq(1), s.cursor.advance.eq(1)]
            with m.If(s.cursor.addr == SQUARES - 1):
                m.next = "Idle"

    def _idle(self, m, s):
        """The generator idle: the last listing has gone, and board writes would be lost."""
        with m.If(~s.link.reply.busy):
            m.d.comb += self._listing.stop.eq(1)
        return ~self.gen.busy

    def _dispatch(self, m, s):
        is_cmd, shifter, listing = s.link.frame.is_cmd, s.shifter, self._listing
        with m.If(flag(is_cmd, Cmd.PING)):
            ping = ping_payload(self.engines, self.threads, SelfTest.NONE)
            m.d.comb += [shifter.load.eq(1), shifter.load_bytes.eq(PING_BYTES),
                         shifter.load_data.eq(Const(int.from_bytes(ping, "little"),
                                                    8 * PING_BYTES))]
            s.reply(Err.OK, PING_BYTES)
        with m.If(flag(is_cmd, Cmd.LOAD) | flag(is_cmd, Cmd.UPDATE)):
            m.next = "Check"
        with m.If(flag(is_cmd, Cmd.GENERATE)):
            m.d.comb += listing.count.eq(1)
            m.next = "List-Count"

    def _states(self, m, s):
        """GENERATE: count and time the moves, then list them."""
        shifter, listing = s.shifter, self._listing
        with m.State("List-Count"):
            with m.If(self.gen.done):
                m.d.comb += listing.capture.eq(1)
                m.next = "List-Reply"
        with m.State("List-Reply"):
            # the second pass starts with the reply: its moves wait for the UART
            listed = listing.listed
            m.d.comb += [shifter.load.eq(1), shifter.load_bytes.eq(LISTING_HEADER),
                         shifter.load_data.eq(Cat(listing.cycles, listed)),
                         listing.send.eq(1)]
            s.reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)


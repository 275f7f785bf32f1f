"""The move generator alone behind the board's command protocol (``hdl.link.protocol``, version 2):
the iCEBreaker's board, where the perft chip does not fit.

::

    rx -> HostLink ---- frame --> command FSM --(squares, state)--> MoveGenerator
          (UART, FIFO,               |  PayloadCursor, ArgumentCheck,    | moves (twice)
          frames, verdict)           |  PositionWriter                   v
    tx <- HostLink <- ReplyShifter <-+- PING, the listing's header <- TwoPassListing

It speaks the protocol's commands that need no perft chip: PING (0 engines, 0 threads, no
self-test: what this board has), LOAD, UPDATE and GENERATE. PERFT, LEGAL, STATUS and ABORT are
answered ``Err.UNSUPPORTED``. The engine byte may be 0 (the generator) or ``ENGINE_ALL``.

A listing is generated twice instead of being buffered (``hdl.link.two_pass_listing``); the next
command waits until the generator is idle.
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..common.contract import CODE_BITS, SQUARES
from ..gen.movegen import MoveGenerator
from .arguments import ArgumentCheck
from .chip_frontend import initial_position
from .cursor import PayloadCursor
from .judge import flag
from .link import HostLink
from .position_writer import PositionWriter
from .protocol import LISTING_HEADER, PING_BYTES, Cmd, Err, SelfTest, ping_payload
from .reply_shifter import ReplyShifter
from .two_pass_listing import TwoPassListing

#: what this board answers; the other commands need the perft chip
SUPPORTED = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE})
SHIFT_BYTES = max(PING_BYTES, LISTING_HEADER)


class GeneratorFrontEnd(wiring.Component):
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
        The generator is listing (for an LED).
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
        self.link = HostLink(divisor, frame_timeout, engines=1, supported=SUPPORTED,
                             registered=True)
        # no LUT RAM on the iCE40: the merger's FIFOs with registered heads, the pieces in
        # planes of flip-flops with the next piece's type found beside its square, the walker's
        # colour lookup over two stages (same moves, same clocks; hdl.gen.movegen). The typed
        # scanner's registers lag the board by a clock: a start never comes in the clock after
        # a board write here (tests/hdl/boards/test_icebreaker.py checks it on every clock)
        self.gen = MoveGenerator(registered_heads=True, typed_scan=True, split_lookup=True)
        super().__init__()

    @property
    def divisor(self) -> int:
        return self.link.divisor

    @property
    def frame_timeout(self) -> int:
        return self.link.frame_timeout

    def elaborate(self, platform):
        m = Module()
        init_codes, init_root = initial_position()
        m.submodules.link = link = self.link
        m.submodules.gen = gen = self.gen
        m.submodules.cursor = cursor = PayloadCursor(registered=True)
        m.submodules.arguments = check = ArgumentCheck()
        m.submodules.writer = writer = PositionWriter(init_root)
        m.submodules.listing = listing = TwoPassListing()
        m.submodules.shifter = shifter = ReplyShifter(SHIFT_BYTES, registered=True)
        m.d.comb += [link.rx.eq(self.rx), self.tx.eq(link.tx), self.busy.eq(gen.busy),
                     self.self_test.eq(SelfTest.NONE)]
        wiring.connect(m, link.payload, cursor.payload)
        wiring.connect(m, cursor.current, check.current, writer.current)
        wiring.connect(m, shifter.payload, link.reply_payload)

        # --- What the generator sees: registers only -------------------------------------------
        root = writer.root
        m.d.comb += [gen.wr_en.eq(writer.wr_en), gen.wr_sq.eq(writer.wr_sq),
                     gen.wr_color.eq(writer.wr_code[:2]), gen.wr_piece.eq(writer.wr_code[2:]),
                     gen.side.eq(root.side), gen.castle.eq(root.castle),
                     gen.ep_valid.eq(root.ep_valid), gen.ep_sq.eq(root.ep_sq),
                     gen.start.eq(listing.start), listing.gen_cycles.eq(gen.cycles)]
        wiring.connect(m, gen.moves, listing.moves)
        # the initial position, written into the generator's board at power-up
        m.submodules.initial = initial = Memory(shape=CODE_BITS, depth=SQUARES, init=init_codes)
        init_r = initial.read_port(domain="comb")
        m.d.comb += [init_r.addr.eq(cursor.addr), writer.copy_sq.eq(cursor.addr[:6]),
                     writer.copy_code.eq(init_r.data)]

        # --- The held frame's payload (LOAD, UPDATE only): checked, then written ---------------
        is_load = flag(link.frame.is_cmd, Cmd.LOAD)
        m.d.comb += [cursor.length.eq(link.frame.header.length),
                     check.load.eq(is_load), check.update.eq(~is_load),
                     writer.load.eq(is_load)]

        # --- The listing's words into the reply ----------------------------------------------
        m.d.comb += [shifter.word_load.eq(listing.word_load), shifter.word_data.eq(listing.word),
                     listing.payload_empty.eq(shifter.empty)]

        self._command_fsm(m, link, cursor, check, writer, listing, shifter)
        return m

    def _command_fsm(self, m, link, cursor, check, writer, listing, shifter):
        is_cmd = link.frame.is_cmd
        r_status = Signal(8)
        r_length = Signal(16)
        m.d.comb += [link.reply.status.eq(r_status), link.reply.length.eq(r_length)]

        def reply(status, length=0):
            m.d.sync += [r_status.eq(status), r_length.eq(length)]
            m.next = "Reply"

        with m.FSM(name="command"):
            with m.State("Power-Up"):
                m.d.comb += [writer.copy.eq(1), cursor.advance.eq(1)]
                with m.If(cursor.addr == 63):
                    m.next = "Idle"

            with m.State("Idle"):
                # the generator idle: the last listing has gone, and board writes would be lost
                with m.If(~link.reply.busy):
                    m.d.comb += listing.stop.eq(1)
                with m.If(link.frame.valid & ~link.reply.busy & ~self.gen.busy):
                    m.d.comb += [check.clear.eq(1), cursor.restart.eq(1)]
                    m.next = "Judge"
            with m.State("Judge"):
                with m.If(~link.frame.ok):
                    reply(link.frame.verdict)
                with m.Else():
                    with m.If(flag(is_cmd, Cmd.PING)):
                        ping = ping_payload(self.engines, self.threads, SelfTest.NONE)
                        m.d.comb += [shifter.load.eq(1), shifter.load_bytes.eq(PING_BYTES),
                                     shifter.load_data.eq(Const(int.from_bytes(ping, "little"),
                                                                8 * PING_BYTES))]
                        reply(Err.OK, PING_BYTES)
                    with m.If(flag(is_cmd, Cmd.LOAD) | flag(is_cmd, Cmd.UPDATE)):
                        m.next = "Check"
                    with m.If(flag(is_cmd, Cmd.GENERATE)):
                        m.d.comb += listing.count.eq(1)
                        m.next = "List-Count"

            # --- LOAD, UPDATE: every argument checked before anything changes ----------------
            with m.State("Check"):
                m.d.comb += [cursor.advance.eq(1), check.check.eq(cursor.started)]
                with m.If(cursor.last):
                    m.next = "Check-Done"
            with m.State("Check-Done"):
                m.d.comb += cursor.restart.eq(1)
                with m.If(check.bad):
                    reply(Err.BAD_ARGUMENT)
                with m.Else():
                    m.next = "Write"
            with m.State("Write"):
                m.d.comb += [cursor.advance.eq(1), writer.write.eq(cursor.started)]
                with m.If(cursor.last):
                    reply(Err.OK)

            # --- GENERATE: count and time the moves, then list them -------------------------
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
                reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)

            with m.State("Reply"):
                m.d.comb += link.reply.start.eq(1)
                m.next = "Idle"

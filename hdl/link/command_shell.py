"""The command shell every UART front end is built on (``hdl.link.protocol``, version 4).

::

    rx -> HostLink ---- frame --> Idle -> Judge --(the board's commands)--> the board's states
          (UART, FIFO,              |        \\-> Check -> Check-Done -> Write     |
          frames, verdict)          |  PayloadCursor, ArgumentCheck, PositionWriter |
    tx <- HostLink <- ReplyShifter <-+------------- Reply <--------------------------+

The shell takes one received frame at a time, once the previous reply has gone (Idle); the link
has judged it (CRC, command, engine, length, busy), and Judge answers a refused frame with its
verdict. A frame the link accepts goes to the board's handlers (``_dispatch``). Commands with
arguments go through Check (every payload byte judged before anything changes) and Check-Done
(the board decides: LOAD and UPDATE go on to Write, which writes the squares and the state
through the position writer). Every command ends in Reply, which starts the reply the handlers
set up with ``Shell.reply`` (its status and length registered, its payload in the reply shifter)
and releases the frame.

A board subclasses ``CommandShell``: it builds its core and wiring in ``_build`` and adds its
commands in ``_dispatch``, ``_checked`` and ``_states``; the shell owns the link, the payload's
parts, the position's memory beside them, the states above and the reply path.

Registered for the die's long routes: ``busy`` (an LED's, from a core that may span the die) is
the core's busy a clock later; the CRC's verdict, set in the receiver as the CRC byte arrives
against the CRC of the frame so far, reaches the judge's register of it with no logic on the way
(``hdl.link.judge``: the ECP5's form), and BAD_CRC is chosen after it. No reply, command or
write moves by a clock.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from posdata.engine.rules.board import Board
from posdata.engine.rules.variants import CHESS

from ..common.contract import CODE_BITS, SQUARES, position_fields, square_codes
from ..common.layouts import Position
from .arguments import ArgumentCheck
from .cursor import PayloadCursor
from .judge import flag
from .position_writer import PositionWriter
from .protocol import Cmd, Err
from .reply_shifter import ReplyShifter


def initial_position(variant=CHESS) -> tuple[list[int], dict]:
    """The variant's start position's square codes (a1 first) and its Position fields, with
    en passant's victim (``ep_victim``, 0 without an en passant square)."""
    board = Board(variant.start_fen, variant)
    return list(square_codes(board)), {**position_fields(board),
                                       "ep_victim": max(board.ep_victim(), 0)}


class Shell:
    """What a board's handlers use in one elaboration: the shell's parts and its two actions."""

    def __init__(self, m, link, cursor, check, writer, shifter, registered):
        self.m = m
        self.link = link
        self.cursor = cursor
        self.check = check
        self.writer = writer
        self.shifter = shifter
        self.header = link.frame.header
        self._registered = registered
        self._status = Signal(8)
        self._length = Signal(16)
        m.d.comb += [link.reply.status.eq(self._status), link.reply.length.eq(self._length)]

    def is_cmd(self, cmd: Cmd):
        """The held frame is ``cmd``: the judge's registered flag on the iCE40, else a compare."""
        if self._registered:
            return flag(self.link.frame.is_cmd, cmd)
        return self.header.cmd == cmd

    def reply(self, status, length=0):
        """Answer the held frame with ``status`` and a payload of ``length`` bytes (the board
        puts them in the shifter): its header registered, sent from Reply."""
        self.m.d.sync += [self._status.eq(status), self._length.eq(length)]
        self.m.next = "Reply"

    def copy_square(self):
        """A square a clock from the position's memory into the writer (addr 1 .. 64: squares
        0 .. 63, read a clock after their address)."""
        self.m.d.comb += [self.cursor.advance.eq(1), self.writer.copy.eq(self.cursor.addr != 0)]


class CommandShell(wiring.Component):
    """The shared front end. A subclass declares the ports (at least ``rx``, ``tx``, ``busy``)
    and calls ``__init__`` with its link.

    Parameters
    ----------
    link : HostLink
        The host's side (a board's judge: its engines and supported commands).
    shift_bytes : int
        The longest payload the reply shifter takes at once.
    variant : engine.rules.variants.Variant
        Whose square codes LOAD and UPDATE accept, and the power-up position.
    perft : bool
        PERFT's arguments are checked too (``ArgumentCheck(perft=True)``).
    registered : bool
        For the iCE40: the cursor and the shifter keep their decisions in registers, the held
        command is read from the judge's registered flags (same clocks).
    copy : bool
        The position's memory is the board's copy of the loaded position (written with the
        core's board, read a clock after its address); else the power-up position alone, read
        in the clock of its address.
    """

    def __init__(self, link, *, shift_bytes: int, variant=CHESS, perft: bool = False,
                 registered: bool = False, copy: bool = True):
        self.link = link
        self._shift_bytes = shift_bytes
        self._variant = variant
        self._perft = perft
        self._registered = registered
        self._copy = copy
        super().__init__()

    @property
    def divisor(self) -> int:
        return self.link.divisor

    @property
    def frame_timeout(self) -> int:
        return self.link.frame_timeout

    # --- what a board adds ----------------------------------------------------------------

    def _build(self, m, s: Shell):
        """The board's core, its parts and their wiring."""
        raise NotImplementedError

    def _busy(self, s: Shell):
        """What ``busy`` shows, a clock later."""
        raise NotImplementedError

    def _root_layout(self):
        """The layout of the root the core takes (``PositionWriter``'s ``layout``)."""
        return Position

    def _power_up(self, m, s: Shell):
        """State Power-Up (the reset state): the power-up position into the core, then Idle."""
        with m.State("Power-Up"):
            s.copy_square()
            with m.If(s.cursor.addr == SQUARES):
                m.d.comb += s.cursor.restart.eq(1)
                m.next = "Idle"

    def _idle(self, m, s: Shell):
        """In Idle: a further condition for taking the held frame (None: none)."""
        return None

    def _dispatch(self, m, s: Shell):
        """In Judge, the frame accepted: the board's commands (``Check`` for LOAD, UPDATE and
        any other with arguments)."""
        raise NotImplementedError

    def _judged(self, m, s: Shell):
        """In Judge, whatever the verdict."""

    def _checking(self, m, s: Shell):
        """In Check: the board's own use of the byte in hand; returns whether ArgumentCheck
        judges it too, besides ``started`` (None: every byte)."""
        return None

    def _checked(self, m, s: Shell):
        """In Check-Done: the arguments refused, else LOAD's or UPDATE's write."""
        with m.If(s.check.bad):
            s.reply(Err.BAD_ARGUMENT)
        with m.Else():
            m.next = "Write"

    def _states(self, m, s: Shell):
        """The board's own states."""

    # --- the shell --------------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        registered = self._registered
        init_codes, init_root = initial_position(self._variant)
        m.submodules.link = link = self.link
        m.submodules.cursor = cursor = PayloadCursor(registered=registered)
        m.submodules.arguments = check = ArgumentCheck(self._variant, perft=self._perft)
        m.submodules.writer = writer = PositionWriter(init_root, self._root_layout())
        m.submodules.shifter = shifter = ReplyShifter(self._shift_bytes, registered=registered)
        m.d.comb += [link.rx.eq(self.rx), self.tx.eq(link.tx)]
        wiring.connect(m, link.payload, cursor.payload)
        wiring.connect(m, cursor.current, check.current, writer.current)
        wiring.connect(m, shifter.payload, link.reply_payload)
        s = Shell(m, link, cursor, check, writer, shifter, registered)

        # the held frame's payload: its arguments checked, then LOAD's or UPDATE's written
        is_load = s.is_cmd(Cmd.LOAD)
        m.d.comb += [cursor.length.eq(s.header.length), check.load.eq(is_load),
                     check.update.eq(s.is_cmd(Cmd.UPDATE)), writer.load.eq(is_load)]
        if self._perft:
            m.d.comb += check.perft.eq(s.is_cmd(Cmd.PERFT))
        self._position(m, cursor, writer, init_codes)

        self._build(m, s)
        m.d.sync += self.busy.eq(self._busy(s))
        self._command_fsm(m, s)
        return m

    def _position(self, m, cursor, writer, init_codes):
        """The position's memory beside the payload: the cursor's address is its square's."""
        if self._copy:
            m.submodules.position = position = Memory(shape=CODE_BITS, depth=SQUARES,
                                                      init=init_codes)
            copy_w, copy_r = position.write_port(), position.read_port()
            m.d.comb += [copy_w.en.eq(writer.wr_en), copy_w.addr.eq(writer.wr_sq),
                         copy_w.data.eq(writer.wr_code), copy_r.addr.eq(cursor.addr),
                         writer.copy_sq.eq(cursor.addr - 1), writer.copy_code.eq(copy_r.data)]
        else:
            m.submodules.initial = initial = Memory(shape=CODE_BITS, depth=SQUARES,
                                                    init=init_codes)
            init_r = initial.read_port(domain="comb")
            m.d.comb += [init_r.addr.eq(cursor.addr), writer.copy_sq.eq(cursor.addr[:6]),
                         writer.copy_code.eq(init_r.data)]

    def _command_fsm(self, m, s: Shell):
        link, cursor, check, writer = s.link, s.cursor, s.check, s.writer
        with m.FSM(name="command"):
            self._power_up(m, s)

            with m.State("Idle"):
                take = link.frame.valid & ~link.reply.busy
                extra = self._idle(m, s)
                with m.If(take if extra is None else take & extra):
                    m.d.comb += [cursor.restart.eq(1), check.clear.eq(1)]
                    m.next = "Judge"
            with m.State("Judge"):
                # the link's verdict on the frame in hand, registered in the clock before (its
                # checks and the command's decoding do not fit in one clock with what follows)
                self._judged(m, s)
                with m.If(~link.frame.ok):
                    s.reply(link.frame.verdict)
                with m.Else():
                    self._dispatch(m, s)

            # --- commands with arguments: every byte checked before anything changes --------
            with m.State("Check"):
                judge = self._checking(m, s)
                m.d.comb += [cursor.advance.eq(1), check.check.eq(
                    cursor.started if judge is None else cursor.started & judge)]
                with m.If(cursor.last):
                    m.next = "Check-Done"
            with m.State("Check-Done"):
                m.d.comb += cursor.restart.eq(1)
                self._checked(m, s)

            # --- LOAD, UPDATE: the squares into the core and the copy, the state -------------
            with m.State("Write"):
                m.d.comb += [cursor.advance.eq(1), writer.write.eq(cursor.started)]
                with m.If(cursor.last):
                    s.reply(Err.OK)

            self._states(m, s)

            with m.State("Reply"):
                m.d.comb += link.reply.start.eq(1)
                m.next = "Idle"

"""A received command's verdict (``hdl.link.protocol``): the checks every frame goes through before
a front end acts on it, in the protocol's order; the first that fails answers.

    CRC (BAD_CRC), command (UNKNOWN_COMMAND), [what the board has (UNSUPPORTED)], engine
    (BAD_ENGINE), payload length (BAD_LENGTH), whether the board can take it now (BUSY)

The arguments (BAD_ARGUMENT) are the front end's to check, byte by byte (``hdl.link.arguments``).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .frame_rx import FrameHeader
from .protocol import (
    ENGINE_ALL,
    LISTINGS,
    NEEDS_IDLE,
    PAYLOAD_LENGTHS,
    STATE_BYTES,
    Cmd,
    Err,
    search_lengths,
)


def command_flags(commands) -> data.StructLayout:
    """One flag per command of ``commands``: the held frame is that command."""
    return data.StructLayout({c.name.lower(): 1 for c in sorted(commands)})


def flag(flags, cmd: Cmd):
    """``flags``' bit for ``cmd`` (a view of a ``command_flags`` layout)."""
    return getattr(flags, cmd.name.lower())


class FrameJudge(wiring.Component):
    """Parameters
    ----------
    engines : int
        Engine numbers below it address one engine (GENERATE and LEGAL: engine 0 alone);
        ``ENGINE_ALL`` addresses them all. The generator-only board passes 1: its generator is
        engine 0.
    supported : frozenset of Cmd
        The commands this board answers; the others known to the protocol are UNSUPPORTED
        (checked right after the command byte).
    registered : bool
        For the iCE40: the verdict in two registered steps, the per-command decoding (which
        command, whether its length fits, the engine) a clock before the verdict. The header
        is set a clock or more before its CRC byte comes, so the verdict is the same in the
        same clock.

    Ports
    -----
    header : In(FrameHeader)
        The held frame's header (``hdl.link.frame_rx``).
    counting : In(1)
        A count runs: the commands that need the chip idle are BUSY.
    self_testing : In(1)
        The power-up self-test counts: ABORT is BUSY too.
    verdict : Out(8)
        The ``Err`` the checks give, from registers: in the clock after the frame is held it
        judges it. Without ``registered`` the CRC's verdict is a register of its own, taken from
        ``header.crc_ok`` with no logic before it, and BAD_CRC is chosen after the registers:
        the receiver and the logic that reads the verdict may lie far apart.
    ok : Out(1)
        ``verdict`` is ``Err.OK``.
    is_cmd : Out(command_flags(supported))
        Which of the supported commands the header names (registered with ``registered``).
    """

    def __init__(self, engines: int, *, supported=frozenset(Cmd), registered: bool = False):
        self._engines = engines
        self._supported = frozenset(supported)
        self._registered = registered
        super().__init__({
            "header": In(FrameHeader), "counting": In(1), "self_testing": In(1),
            "verdict": Out(8), "ok": Out(1), "is_cmd": Out(command_flags(supported)),
        })

    def _fits(self, cmd, length):
        lo, hi = PAYLOAD_LENGTHS[cmd]
        fits = (length >= lo) & (length <= hi)
        if cmd == Cmd.UPDATE:  # the state bytes, then whole pairs (update_length_ok)
            fits = fits & (length[0] == STATE_BYTES % 2)
        elif cmd == Cmd.SEARCH:  # whole hashes after the job: a few dozen lengths, all listed
            fits = Cat(length == n for n in sorted(search_lengths())).any()
        return fits

    def elaborate(self, platform):
        m = Module()
        if self._registered:
            known, supported, engine_ok, length_ok, blocked = self._decode_registered(m)
        else:
            known, supported, engine_ok, length_ok, blocked = self._decode(m)
        # the checks in the protocol's order; the ECP5's CRC check is applied after the register
        # (below)
        checks = [(~known, Err.UNKNOWN_COMMAND)]
        if supported is not None:
            checks.append((~supported, Err.UNSUPPORTED))
        checks += [(~engine_ok, Err.BAD_ENGINE), (~length_ok, Err.BAD_LENGTH),
                   (blocked, Err.BUSY)]
        if self._registered:
            checks.insert(0, (~self.header.crc_ok, Err.BAD_CRC))
        verdict = Signal(8)
        for i, (failed, err) in enumerate(checks):
            with (m.Elif if i else m.If)(failed):
                m.d.comb += verdict.eq(err)
        with m.Else():
            m.d.comb += verdict.eq(Err.OK)
        judged = Signal(8)
        m.d.sync += judged.eq(verdict)
        if self._registered:
            judged_ok = Signal()
            m.d.sync += judged_ok.eq(verdict == Err.OK)
            m.d.comb += [self.verdict.eq(judged), self.ok.eq(judged_ok)]
        else:
            # the receiver's CRC verdict taken as it stands, in a clock with no logic before it
            # (the receiver and the command logic may lie far apart on a large part); the other
            # checks' verdict yields to it after the register
            crc_bad = Signal()
            m.d.sync += crc_bad.eq(~self.header.crc_ok)
            m.d.comb += [self.verdict.eq(Mux(crc_bad, Err.BAD_CRC, judged)),
                         self.ok.eq(~crc_bad & (judged == Err.OK))]
        return m

    def _unsupported(self):
        return self._supported != frozenset(Cmd)

    def _decode(self, m):
        """Every check from the header as it stands."""
        hdr = self.header
        known = Signal()
        engine_ok = Signal()
        length_ok = Signal()
        blocked = Signal()
        supported = Signal() if self._unsupported() else None
        any_engine = (hdr.engine < self._engines) | (hdr.engine == ENGINE_ALL)
        with m.Switch(hdr.cmd):
            for c in Cmd:
                with m.Case(c):
                    m.d.comb += [known.eq(1), length_ok.eq(self._fits(c, hdr.length))]
                    if c in self._supported:
                        m.d.comb += flag(self.is_cmd, c).eq(1)
                        if supported is not None:
                            m.d.comb += supported.eq(1)
                    if c in LISTINGS:
                        m.d.comb += engine_ok.eq((hdr.engine == 0) | (hdr.engine == ENGINE_ALL))
                    else:
                        m.d.comb += engine_ok.eq(any_engine)
                    if c in NEEDS_IDLE:
                        m.d.comb += blocked.eq(self.counting)
                    elif c == Cmd.ABORT:
                        m.d.comb += blocked.eq(self.self_testing)
        return known, supported, engine_ok, length_ok, blocked

    def _decode_registered(self, m):
        """Per command, whether the header names it and whether its length fits, registered;
        the engine's check too."""
        hdr = self.header
        is_cmd = {c: Signal(name=f"is_cmd_{c.value:02x}") for c in Cmd}
        fits = {c: Signal(name=f"fits_cmd_{c.value:02x}") for c in Cmd}
        for c in Cmd:
            m.d.sync += [is_cmd[c].eq(hdr.cmd == c), fits[c].eq(self._fits(c, hdr.length))]
            if c in self._supported:
                m.d.comb += flag(self.is_cmd, c).eq(is_cmd[c])
        listing_engine = Signal()  # engine 0 or ENGINE_ALL
        m.d.sync += listing_engine.eq((hdr.engine == 0) | (hdr.engine == ENGINE_ALL))
        if self._engines == 1:
            engine_ok = listing_engine
        else:
            any_engine = Signal()
            m.d.sync += any_engine.eq((hdr.engine < self._engines) | (hdr.engine == ENGINE_ALL))
            engine_ok = (Cat(is_cmd[c] for c in LISTINGS).any() & listing_engine
                         | Cat(is_cmd[c] for c in Cmd if c not in LISTINGS).any() & any_engine)
        known = Cat(is_cmd.values()).any()
        supported = Cat(is_cmd[c] for c in self._supported).any() if self._unsupported() else None
        length_ok = Cat(is_cmd[c] & fits[c] for c in Cmd).any()
        blocked = (Cat(is_cmd[c] for c in NEEDS_IDLE).any() & self.counting
                   | is_cmd[Cmd.ABORT] & self.self_testing)
        return known, supported, engine_ok, length_ok, blocked

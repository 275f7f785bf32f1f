"""What the board's LEDs show (``hdl.boards.ecp5_top``), apart from the board so that it simulates.

=====  ==========================================================================================
LED    meaning
=====  ==========================================================================================
0      the chip is busy: counting or listing (stretched to ~40 ms so that a listing is seen)
1      the PLL is locked
2      heartbeat: the clock runs (~1.5 Hz at 100 MHz)
3      power-up self-test: off while it runs, steady when it passed, blinking (~6 Hz) when it
       failed (off also when the bitstream has none)
=====  ==========================================================================================
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..link.protocol import SelfTest

LEDS = 4


class StatusLeds(wiring.Component):
    """Parameters
    ----------
    stretch_bits, heartbeat_bits, blink_bit : int
        Counter widths (clocks: 2**bits): the busy stretch, the heartbeat's period, and the
        heartbeat bit that blinks a failed self-test. Tests make them small.

    Ports
    -----
    busy, locked : In(1)
    self_test : In(2)
        A ``SelfTest`` value (its LED follows it a clock later).
    leds : Out(LEDS)
        LEDs 0 and 3 from registers, 1 ``locked`` as it comes, 2 the heartbeat's top bit.
    """

    busy: In(1)
    locked: In(1)
    self_test: In(2)
    leds: Out(LEDS)

    def __init__(self, stretch_bits: int = 22, heartbeat_bits: int = 26, blink_bit: int = 23):
        if not 0 <= blink_bit < heartbeat_bits:
            raise TypeError(f"blink_bit must be below heartbeat_bits ({heartbeat_bits}), not "
                            f"{blink_bit!r}")
        self._stretch_bits = stretch_bits
        self._heartbeat_bits = heartbeat_bits
        self._blink_bit = blink_bit
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        stretch = Signal(self._stretch_bits)
        heartbeat = Signal(self._heartbeat_bits)
        m.d.sync += heartbeat.eq(heartbeat + 1)
        # the busy and self-test LEDs are registers, set from their counters' next values (the
        # same light in the same clock), so each pin's buffer is driven by a flip-flop and no
        # counter's compare lies between the die and the pin
        lit = Signal()
        with m.If(self.busy):
            m.d.sync += [stretch.eq(-1), lit.eq(1)]
        with m.Elif(stretch != 0):
            m.d.sync += [stretch.eq(stretch - 1), lit.eq(stretch != 1)]
        verdict = Signal()
        with m.Switch(self.self_test):
            with m.Case(SelfTest.PASSED):
                m.d.sync += verdict.eq(1)
            with m.Case(SelfTest.FAILED):
                m.d.sync += verdict.eq((heartbeat + 1)[self._blink_bit])
            with m.Default():
                m.d.sync += verdict.eq(0)
        m.d.comb += self.leds.eq(Cat(lit, self.locked, heartbeat[-1], verdict))
        return m

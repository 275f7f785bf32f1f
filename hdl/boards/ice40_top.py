"""The iCEBreaker's top (iCE40 UP5K): the PLL clocks the move generator and its UART front end
(``hdl.link.gen_frontend``) from the board's 12 MHz oscillator; the host talks to it over the FTDI
FT2232H's second channel (``hdl.link.protocol``).

The UP5K has 5,280 LUT4 and 30 SB_RAM40_4K: the generator with the dense posdata table and its
start entries fits, the perft chip (about 9-10K LUT4 per engine on the ECP5) does not, so this
board lists moves and answers the perft commands ``Err.UNSUPPORTED``.

The clock must be a whole multiple of the baud rate (``exact_divisor``): 33 MHz (the default) is 11
clocks per bit at 3 Mbaud. Reset is held until the PLL has locked and then for ``POR_US``
more: iCE40 block RAMs read as zeros for about 3 us after configuration (Amaranth's own iCE40
clock domain waits too).

LEDs: red = the generator is listing (stretched so a listing is seen), green = heartbeat (about
1 Hz at 33 MHz) while the PLL is locked.
"""

from amaranth import ClockDomain, ClockSignal, Elaboratable, Module, Signal
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from ..link.gen_frontend import GeneratorFrontEnd
from ..link.protocol import DEFAULT_BAUD
from .ice40_pll import Ice40Pll, exact_divisor, ice40_pll_settings
from .leds import StatusLeds

POR_US = 15  #: reset held after lock: 5x the block RAMs' ~3 us (Amaranth's iCE40 margin)
#: 11 clocks per bit at 3 Mbaud (hdl.boards.synth_targets.ICE40.default_mhz)
DEFAULT_ICE40_MHZ = 33.0


class ICEBreakerTop(Elaboratable):
    """Elaboratable for amaranth-boards' ``ICEBreakerPlatform``."""

    def __init__(self, mhz: float = DEFAULT_ICE40_MHZ, baud: int = DEFAULT_BAUD):
        self.mhz = mhz
        self.baud = baud
        try:  # fails early, before the platform
            self.settings = ice40_pll_settings(12.0, mhz)
            self.divisor = exact_divisor(mhz * 1e6, baud)
        except ValueError:
            # refused: this object is never to be elaborated, so Amaranth need not warn (three
            # lines after the error) that it was not
            self._MustUse__silence = True
            raise

    def elaborate(self, platform):
        clk_in_hz = platform.default_clk_frequency
        self.settings = settings = ice40_pll_settings(clk_in_hz / 1e6, self.mhz)
        m = Module()  # after the settings, as hdl.boards.ecp5_top: none made and dropped
        clk_pin = platform.request(platform.default_clk, dir="-")
        m.submodules.pll = pll = Ice40Pll(settings, clk_pin.io)
        m.domains.sync = ClockDomain("sync")
        m.d.comb += ClockSignal("sync").eq(pll.clk_out)

        por_clocks = int(POR_US * self.mhz)
        por = Signal(range(por_clocks + 1), reset_less=True)
        ready = Signal(reset_less=True)
        with m.If(~pll.locked):
            m.d.sync += [por.eq(0), ready.eq(0)]
        with m.Elif(por == por_clocks):
            m.d.sync += ready.eq(1)
        with m.Else():
            m.d.sync += por.eq(por + 1)
        m.submodules.reset_sync = ResetSynchronizer(~ready, domain="sync")

        uart_pins = platform.lookup("uart", 0).ios
        uart = platform.request("uart", 0, dir={sub.name: "-" for sub in uart_pins})
        m.submodules.rx_buf = rx_buf = io.Buffer("i", uart.rx)
        m.submodules.tx_buf = tx_buf = io.Buffer("o", uart.tx)
        m.submodules.frontend = frontend = GeneratorFrontEnd(self.divisor)
        m.d.comb += [frontend.rx.eq(rx_buf.i), tx_buf.o.eq(frontend.tx)]

        # hdl.boards.leds' counters, shorter for a clock a quarter of the ULX3S's
        m.submodules.status = status = StatusLeds(stretch_bits=21, heartbeat_bits=25,
                                                  blink_bit=22)
        m.d.comb += [status.busy.eq(frontend.busy), status.locked.eq(pll.locked),
                     status.self_test.eq(frontend.self_test)]
        for name, bit in (("led_r", 0), ("led_g", 2)):
            led = platform.request(name, 0, dir="-")
            m.submodules[f"{name}_buf"] = buf = io.Buffer("o", led)
            m.d.comb += buf.o.eq(status.leds[bit] & (pll.locked if bit == 2 else 1))
        return m

"""The board top: a PLL clocks the perft chip and its UART front end from the board's
oscillator; the host talks to it over the board's USB serial port (``hdl.link.protocol``).

Once the PLL has locked and the reset is released, the front end loads the initial position and
runs its power-up self-test: bulk perft(4), compared with the published 197,281 leaves.

LEDs (where the board has them; ``hdl.boards.leds``): 0 = the chip is busy (stretched so a listing
is visible), 1 = PLL locked, 2 = heartbeat (about 1.5 Hz), 3 = self-test: steady when it passed,
blinking when it failed, off while it runs.
"""

from amaranth import ClockDomain, ClockSignal, Elaboratable, Module
from amaranth.build import ResourceError
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from posdata.engine.rules.variants import CHESS

from ..link.chip_frontend import UartFrontEnd
from ..link.protocol import DEFAULT_BAUD, SELF_TEST_DEPTH
from ..link.search_frontend import SearchFrontEnd
from .ecp5_pll import PFD_MHZ, EcpPll, pll_settings
from .leds import LEDS, StatusLeds

MAX_BAUD_ERROR = 0.02


def uart_divisor(clock_hz: float, baud: int) -> int:
    divisor = round(clock_hz / baud)
    error = abs(clock_hz / divisor - baud) / baud
    if divisor < 4 or error > MAX_BAUD_ERROR:
        raise ValueError(f"{baud} baud does not fit a {clock_hz / 1e6:g} MHz clock "
                         f"(divisor {clock_hz / baud:.2f}); choose another --mhz or --baud")
    return divisor


class BoardTop(Elaboratable):
    """Elaboratable for an amaranth-boards ECP5 platform."""

    def __init__(self, mhz: float, baud: int = DEFAULT_BAUD, *, engines: int = 1,
                 self_test_depth: int | None = SELF_TEST_DEPTH, variant=CHESS,
                 search: bool = False, search_threads: int = 1):
        self.mhz = mhz
        self.search = search  # the search board: search threads instead of the perft chip
        self.search_threads = search_threads
        self.engines = engines
        self.variant = variant
        self.baud = baud
        self.self_test_depth = self_test_depth
        self.settings = None  # PLL settings, known once elaborated for a board
        self.divisor = None

    def elaborate(self, platform):
        # the settings first: a clock or baud rate they refuse leaves no Module made and dropped
        # (Amaranth warns of each as UnusedElaboratable)
        clk_in_hz = platform.default_clk_frequency
        self.settings = settings = pll_settings(clk_in_hz / 1e6, self.mhz)
        self.divisor = uart_divisor(settings.output_mhz * 1e6, self.baud)
        m = Module()

        clk_pin = platform.request(platform.default_clk, dir="-")
        m.submodules.clk_buf = clk_buf = io.Buffer("i", clk_pin)
        m.submodules.pll = pll = EcpPll(settings)
        m.d.comb += pll.clk_in.eq(clk_buf.i)
        m.domains.sync = ClockDomain("sync")
        m.d.comb += ClockSignal("sync").eq(pll.clk_out)
        m.submodules.reset_sync = ResetSynchronizer(~pll.locked, domain="sync")
        # No constraint on the PLL's output: nextpnr derives it from the oscillator's (the board
        # file's) and the PLL's dividers, and a net named here would not survive synthesis.

        # every subsignal raw (rts/dtr included, left unused): buffers are instantiated here
        uart_pins = platform.lookup("uart", 0).ios
        uart = platform.request("uart", 0, dir={sub.name: "-" for sub in uart_pins})
        m.submodules.rx_buf = rx_buf = io.Buffer("i", uart.rx)
        m.submodules.tx_buf = tx_buf = io.Buffer("o", uart.tx)
        if self.search:
            frontend = SearchFrontEnd(self.divisor, threads=self.search_threads)
        else:
            frontend = UartFrontEnd(self.divisor, engines=self.engines,
                                    self_test_depth=self.self_test_depth, variant=self.variant)
        m.submodules.frontend = frontend
        m.d.comb += [frontend.rx.eq(rx_buf.i), tx_buf.o.eq(frontend.tx)]

        m.submodules.status = status = StatusLeds()
        m.d.comb += [status.busy.eq(frontend.busy), status.locked.eq(pll.locked)]
        if not self.search:  # the search board has no self-test: its LEDs show none
            m.d.comb += status.self_test.eq(frontend.self_test)
        for i in range(LEDS):
            try:
                led = platform.request("led", i, dir="-")
            except ResourceError:  # a board with fewer LEDs
                break
            m.submodules[f"led_buf{i}"] = buf = io.Buffer("o", led)
            m.d.comb += buf.o.eq(status.leds[i])
        return m



def fitting_mhz(fmax_mhz: float, baud: int, input_mhz: float) -> float | None:
    """The highest clock at or below ``fmax_mhz`` that the PLL makes from ``input_mhz`` and
    whose UART divisor is within ``MAX_BAUD_ERROR`` of ``baud``; None if there is none. For a
    build that missed its clock: rebuilt at this one, the baud rate kept (the host's)."""
    outputs = sorted({input_mhz / clki * fb for clki in range(1, 129)
                      if PFD_MHZ[0] <= input_mhz / clki <= PFD_MHZ[1]
                      for fb in range(1, 81) if input_mhz / clki * fb <= fmax_mhz},
                     reverse=True)
    for want in outputs:
        try:
            out = pll_settings(input_mhz, want).output_mhz
            uart_divisor(out * 1e6, baud)
        except ValueError:
            continue
        if out <= fmax_mhz:
            return out
    return None

"""The iCE40 PLL (SB_PLL40_PAD) that clocks the generator from the iCEBreaker's 12 MHz oscillator.

Ref: Lattice FPGA-TN-02052 "iCE40 sysCLOCK PLL Design and Usage Guide" (and icepll, which
applies it): in SIMPLE feedback the phase detector runs at F_REF / (DIVR + 1) (10 .. 133 MHz),
the VCO at that times (DIVF + 1) (533 .. 1066 MHz), and the output is the VCO / 2**DIVQ
(16 .. 275 MHz); DIVR 0 .. 15, DIVF 0 .. 127, DIVQ 1 .. 6. FILTER_RANGE follows the phase
detector's frequency, as icepll sets it.

Unlike the ECP5's ``hdl.boards.ecp5_pll.pll_settings`` this search wants the frequency exactly: the
UART's divisor must be a whole number of clocks per bit (``exact_divisor``).
"""

from dataclasses import dataclass

from amaranth import Instance, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

PFD_MHZ = (10.0, 133.0)
VCO_MHZ = (533.0, 1066.0)
OUT_MHZ = (16.0, 275.0)
#: icepll's FILTER_RANGE: the first bound above the phase detector's frequency (MHz) gives it
FILTER_BOUNDS = ((17, 1), (26, 2), (44, 3), (66, 4), (101, 5))
EXACT = 1e-9  #: relative slack for "exactly" in floating point


@dataclass(frozen=True)
class Ice40PllSettings:
    divr: int
    divf: int
    divq: int
    input_mhz: float
    output_mhz: float

    @property
    def pfd_mhz(self) -> float:
        return self.input_mhz / (self.divr + 1)

    @property
    def vco_mhz(self) -> float:
        return self.pfd_mhz * (self.divf + 1)

    @property
    def filter_range(self) -> int:
        return next((r for bound, r in FILTER_BOUNDS if self.pfd_mhz < bound), 6)


def ice40_pll_settings(input_mhz: float, want_mhz: float) -> Ice40PllSettings:
    """The dividers that give exactly ``want_mhz`` (ties: the lowest VCO, as icepll prefers the
    first it finds); ``ValueError`` when none does."""
    best = None
    for divr in range(16):
        pfd = input_mhz / (divr + 1)
        if not PFD_MHZ[0] <= pfd <= PFD_MHZ[1]:
            continue
        for divf in range(128):
            vco = pfd * (divf + 1)
            if not VCO_MHZ[0] <= vco <= VCO_MHZ[1]:
                continue
            for divq in range(1, 7):
                out = vco / 2 ** divq
                if abs(out - want_mhz) <= EXACT * want_mhz and OUT_MHZ[0] <= out <= OUT_MHZ[1]:
                    if best is None or vco < best.vco_mhz:
                        best = Ice40PllSettings(divr, divf, divq, input_mhz, out)
    if best is None:
        raise ValueError(f"no iCE40 PLL setting (DIVR, DIVF, DIVQ) gives exactly {want_mhz:g} MHz "
                         f"from {input_mhz:g} MHz (from 12 MHz: multiples of 0.375 MHz from 17 to "
                         f"33 MHz, of 0.75 MHz up to 66 MHz)")
    return best


def exact_divisor(clock_hz: float, baud: int) -> int:
    """Clocks per UART bit when ``clock_hz`` is a whole multiple of ``baud`` (at least 4)."""
    divisor = round(clock_hz / baud)
    if divisor < 4 or abs(divisor * baud - clock_hz) > EXACT * clock_hz:
        raise ValueError(f"{clock_hz / 1e6:g} MHz is not a whole multiple of {baud} baud "
                         f"(at least 4 clocks per bit): choose --mhz a multiple of "
                         f"{baud / 1e6:g} MHz")
    return divisor


class Ice40Pll(wiring.Component):
    """``clk_out`` (a global net) from the oscillator's pad; ``locked`` once the PLL has settled.

    Parameters
    ----------
    settings : Ice40PllSettings
    pad : the oscillator's pin (``platform.request(..., dir="-").io``): SB_PLL40_PAD takes it
        straight from the package pin, the PLL's dedicated input
    """

    clk_out: Out(1)
    locked: Out(1)

    def __init__(self, settings: Ice40PllSettings, pad):
        self.settings = settings
        self.pad = pad
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        s = self.settings
        m.submodules.pll = Instance(
            "SB_PLL40_PAD",
            p_FEEDBACK_PATH="SIMPLE",
            p_DIVR=s.divr, p_DIVF=s.divf, p_DIVQ=s.divq, p_FILTER_RANGE=s.filter_range,
            i_PACKAGEPIN=self.pad, i_RESETB=1, i_BYPASS=0,
            o_PLLOUTGLOBAL=self.clk_out, o_LOCK=self.locked,
        )
        return m

"""The ECP5 PLL (EHXPLLL) that clocks the generator from a board's oscillator.

Ref: Lattice TN1263 "ECP5 and ECP5-5G sysCLOCK PLL/DLL Design and Usage Guide": the phase
detector runs at CLKI / CLKI_DIV (3.125 .. 400 MHz), with feedback from CLKOP the output is
CLKI * CLKFB_DIV / CLKI_DIV, and the VCO (output * CLKOP_DIV) must lie in 400 .. 800 MHz. The
divider search below and the fixed analogue settings follow what Project Trellis's ecppll writes.
"""

from dataclasses import dataclass

from amaranth import Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

PFD_MHZ = (3.125, 400.0)
VCO_MHZ = (400.0, 800.0)
MAX_ERROR = 0.01  #: how far from the asked frequency a setting may land


@dataclass(frozen=True)
class PllSettings:
    clki_div: int
    clkfb_div: int
    clkop_div: int
    input_mhz: float
    output_mhz: float  #: what the dividers really give

    @property
    def vco_mhz(self) -> float:
        return self.output_mhz * self.clkop_div


def pll_settings(input_mhz: float, want_mhz: float) -> PllSettings:
    """The dividers whose output is closest to ``want_mhz`` (ties: the VCO nearest the middle
    of its range, as ecppll chooses)."""
    best = None
    for clki_div in range(1, 129):
        pfd = input_mhz / clki_div
        if not PFD_MHZ[0] <= pfd <= PFD_MHZ[1]:
            continue
        for clkfb_div in range(1, 81):
            out = pfd * clkfb_div
            for clkop_div in range(1, 129):
                vco = out * clkop_div
                if not VCO_MHZ[0] <= vco <= VCO_MHZ[1]:
                    continue
                key = (abs(out - want_mhz), abs(vco - sum(VCO_MHZ) / 2))
                if best is None or key < best[0]:
                    best = (key, PllSettings(clki_div, clkfb_div, clkop_div, input_mhz, out))
    if best is None or best[0][0] > MAX_ERROR * want_mhz:
        raise ValueError(f"no PLL setting gives {want_mhz:g} MHz from {input_mhz:g} MHz "
                         f"(the output range is about {VCO_MHZ[0] / 128:g} to {VCO_MHZ[1]:g} MHz)")
    return best[1]


class EcpPll(wiring.Component):
    """``clk_out`` from ``clk_in``; ``locked`` once the PLL has settled."""

    clk_in: In(1)
    clk_out: Out(1)
    locked: Out(1)

    def __init__(self, settings: PllSettings):
        self.settings = settings
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        s = self.settings
        feedback = Signal()
        m.submodules.pll = Instance(
            "EHXPLLL",
            a_FREQUENCY_PIN_CLKI=f"{s.input_mhz:g}",
            a_FREQUENCY_PIN_CLKOP=f"{s.output_mhz:g}",
            a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1",
            a_MFG_GMCREF_SEL="2",
            p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
            p_DPHASE_SOURCE="DISABLED", p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB",
            p_OUTDIVIDER_MUXC="DIVC", p_OUTDIVIDER_MUXD="DIVD",
            p_CLKI_DIV=s.clki_div, p_CLKOP_ENABLE="ENABLED", p_CLKOP_DIV=s.clkop_div,
            p_CLKOP_CPHASE=s.clkop_div - 1, p_CLKOP_FPHASE=0,
            p_FEEDBK_PATH="CLKOP", p_CLKFB_DIV=s.clkfb_div,
            i_RST=0, i_STDBY=0, i_CLKI=self.clk_in, o_CLKOP=feedback, i_CLKFB=feedback,
            i_PHASESEL0=0, i_PHASESEL1=0, i_PHASEDIR=1, i_PHASESTEP=1,
            i_PHASELOADREG=1, i_PLLWAKESYNC=0, i_ENCLKOP=0, o_LOCK=self.locked,
        )
        m.d.comb += self.clk_out.eq(feedback)
        return m

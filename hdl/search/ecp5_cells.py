"""A block RAM read through its output register and a multiply between the DSP's registers, as
the pipelined thread uses them (docs/chip_search.md, "The budget").

Yosys' ECP5 flow absorbs neither: it maps a memory to a DP16KD without its output register
(``REGMODE NOREG``) and a ``*`` to a MULT18X18D without its registers, so registers written
around them stay in the fabric and the paths through the primitives stay long. On the ECP5 (a
platform whose ``family`` is "ecp5", as in hdl.chip.kept_register) these components are the
primitives with their registers configured; elsewhere (the simulators) a memory or ``*`` and
registers that behave the same, clock for clock.
"""

from amaranth import ClockSignal, Const, Instance, Module, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

ROM_DEPTH = 1024  #: a DP16KD in its 1,024 x 18 shape
ROM_WIDTH = 18
DSP_WIDTH = 18    #: a MULT18X18D's operands


def _ecp5(platform) -> bool:
    return getattr(platform, "family", None) == "ecp5"


def _initvals(image: list[int]) -> dict:
    """The DP16KD's INITVAL parameters: 16 words of 18 bits a parameter, each in 20 bits
    (Yosys' brams_map_16kd.v lays them out the same)."""
    params = {}
    for i in range(ROM_DEPTH // 16):
        words = image[16 * i:16 * i + 16]
        params[f"p_INITVAL_{i:02X}"] = Const(sum(w << 20 * j for j, w in enumerate(words)), 320)
    return params


class RomPair(wiring.Component):
    """Two read ports of a 1,024 x 18 ROM, each ``LATENCY`` clocks from address to data: the
    address register, then the output register.

    Ports
    -----
    addr : In(ArrayLayout(10, 2))   an address per port
    data : Out(ArrayLayout(18, 2))  its word, ``LATENCY`` clocks later
    """

    LATENCY = 2

    def __init__(self, image):
        self._image = list(image)
        if len(self._image) != ROM_DEPTH:
            raise ValueError(f"a ROM image of {ROM_DEPTH} words, not {len(self._image)}")
        super().__init__({"addr": In(data.ArrayLayout(10, 2)),
                          "data": Out(data.ArrayLayout(ROM_WIDTH, 2))})

    def elaborate(self, platform):
        m = Module()
        if _ecp5(platform):
            ports = {}
            for port, name in enumerate("AB"):
                ports.update({f"i_CLK{name}": ClockSignal(), f"i_CE{name}": 1,
                              f"i_OCE{name}": 1, f"i_WE{name}": 0, f"i_RST{name}": 0})
                for b in range(3):
                    ports[f"i_CS{name}{b}"] = 0
                for b in range(14):  # 18 bits wide: the word's address in bits 4-13
                    ports[f"i_AD{name}{b}"] = self.addr[port][b - 4] if b >= 4 else 0
                for b in range(ROM_WIDTH):
                    ports[f"i_DI{name}{b}"] = 0
                    ports[f"o_DO{name}{b}"] = self.data[port][b]
            m.submodules.bram = Instance(
                "DP16KD", p_DATA_WIDTH_A=ROM_WIDTH, p_DATA_WIDTH_B=ROM_WIDTH,
                p_REGMODE_A="OUTREG", p_REGMODE_B="OUTREG", p_RESETMODE="SYNC",
                p_ASYNC_RESET_RELEASE="SYNC", p_CSDECODE_A="0b000", p_CSDECODE_B="0b000",
                p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL", p_GSR="DISABLED",
                **_initvals(self._image), **ports)
        else:
            m.submodules.rom = rom = Memory(shape=ROM_WIDTH, depth=ROM_DEPTH, init=self._image)
            for port in range(2):
                read = rom.read_port()
                m.d.comb += read.addr.eq(self.addr[port])
                m.d.sync += self.data[port].eq(read.data)  # the output register
        return m


class Product(wiring.Component):
    """``p = a * b`` (signed) ``LATENCY`` clocks after ``a`` and ``b``: the DSP's input
    registers, then its output register.

    Ports
    -----
    a, b : In(signed(18))
    p : Out(signed(36))
    """

    LATENCY = 2

    a: In(signed(DSP_WIDTH))
    b: In(signed(DSP_WIDTH))
    p: Out(signed(2 * DSP_WIDTH))

    def elaborate(self, platform):
        m = Module()
        if _ecp5(platform):
            ports = {"i_CLK0": ClockSignal(), "i_CE0": 1, "i_RST0": 0, "i_SIGNEDA": 1,
                     "i_SIGNEDB": 1, "i_SOURCEA": 0, "i_SOURCEB": 0}
            for b in range(DSP_WIDTH):
                ports.update({f"i_A{b}": self.a[b], f"i_B{b}": self.b[b], f"i_C{b}": 0})
            for b in range(2 * DSP_WIDTH):
                ports[f"o_P{b}"] = self.p[b]
            m.submodules.dsp = Instance(
                "MULT18X18D", p_REG_INPUTA_CLK="CLK0", p_REG_INPUTB_CLK="CLK0",
                p_REG_OUTPUT_CLK="CLK0", p_REG_INPUTC_CLK="NONE", p_REG_PIPELINE_CLK="NONE",
                p_GSR="DISABLED", p_RESETMODE="SYNC", p_SOURCEB_MODE="B_SHIFT",
                p_MULT_BYPASS="DISABLED", **ports)
        else:
            a, b = Signal.like(self.a), Signal.like(self.b)
            m.d.sync += [a.eq(self.a), b.eq(self.b), self.p.eq(a * b)]
        return m

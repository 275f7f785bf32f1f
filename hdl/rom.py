"""The posdata ROM, initialised at elaboration from engine's tables (never a copy).

Word: ``nextpos | nextdir << 6`` (12 bits). Address: ``table << 12 | from << 6 | to``, where
``table`` is the ptype with BPAWN (7) folded onto the unused slot 0, so 7 tables fill
7 * 4096 = 28672 words.

In gateware the ROM is two banks of 16384 words (tables 0-3 and 4-6), selected by address bit
14. A 16384-deep bank maps onto ECP5 block RAMs in their 16K x 1 shape, twelve side by side,
so a read needs no output multiplexer but the one 2:1 bank select: the walker's next address
depends on the word it just read, and every level of logic on that path costs clock speed.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from engine.defs import BPAWN, N_PTYPES
from engine.posdata import NEXTDIR, NEXTPOS

WORD_BITS = 12
ADDR_BITS = 15
ROM_DEPTH = 7 * 4096
BANK_DEPTH = 1 << 14


def table_index(ptype: int) -> int:
    return 0 if ptype == BPAWN else ptype


def rom_address(ptype: int, frm: int, to: int) -> int:
    return table_index(ptype) << 12 | frm << 6 | to


def rom_image() -> list[int]:
    image = [0] * ROM_DEPTH
    for pt in range(1, N_PTYPES):
        words = NEXTPOS[pt].astype(int) | NEXTDIR[pt].astype(int) << 6  # [from][to]
        base = table_index(pt) << 12
        image[base:base + 4096] = words.reshape(-1).tolist()
    return image


ReadPort = wiring.Signature({"addr": Out(ADDR_BITS), "en": Out(1), "data": In(WORD_BITS)})


class PosdataRom(wiring.Component):
    """Two synchronous read ports (one cycle latency; ``data`` holds while ``en`` is low).

    Ports
    -----
    a, b : In(ReadPort)
    """

    a: In(ReadPort)
    b: In(ReadPort)

    def elaborate(self, platform):
        m = Module()
        image = rom_image()
        banks = [Memory(shape=WORD_BITS, depth=BANK_DEPTH, init=image[i:i + BANK_DEPTH])
                 for i in (0, BANK_DEPTH)]
        m.submodules.bank_lo, m.submodules.bank_hi = banks
        for port in (self.a, self.b):
            reads = [bank.read_port() for bank in banks]
            high = Signal()  # the bank of the word on the output
            for r in reads:
                m.d.comb += [r.addr.eq(port.addr[:14]), r.en.eq(port.en)]
            with m.If(port.en):
                m.d.sync += high.eq(port.addr[14])
            m.d.comb += port.data.eq(Mux(high, reads[1].data, reads[0].data))
        return m

"""The posdata ROM, initialised at elaboration from engine's tables (contents and addressing:
``hdl.rom_image``).

Beside each word the gateware keeps two bits derived from the same tables at elaboration:
whether nextpos, and whether nextdir, leads back to the from-square (the walk, or a pawn's
thread, ends there). The walker needs that answer in the cycle the word arrives from the block
RAM; reading it from the ROM instead of comparing six bits keeps a comparator off the path that
limits the clock.

For an FPGA (elaborated with a platform) the ROM is fourteen memories of one bit each
(bit-sliced); in simulation (no platform) it is one memory of 14-bit words, which the
simulators read in one step instead of fourteen. Both are the same synchronous ROM: same
contents, same one-cycle latency. A one-bit memory of
28672 words can only map onto ECP5 block RAMs in their 16K x 1 shape, two per bit, so a read
passes one 2:1 multiplexer (address bit 14) between the block RAM and its register; a
twelve-bit-wide memory is mapped as 2K x 9 blocks behind an 8:1 multiplexer tree, which costs
several nanoseconds on the path that limits the clock.
"""

from amaranth import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .rom_image import (ADDR_BITS, END_BITS, ROM_DEPTH, START_DEPTH,  # noqa: F401 (re-exported)
                        TABLE_BITS, WORD_BITS, end_image, rom_address, rom_image, start_address,
                        start_image, table_index)

#: a read port of the walk ROM: an address in, the posdata word and its end bits out
ReadPort = wiring.Signature({"addr": Out(ADDR_BITS), "en": Out(1), "data": In(WORD_BITS),
                             "ends": In(END_BITS)})

#: where a piece's walk starts: (table, from-square) in, ``posdata[table][from][from]`` out
StartPort = wiring.Signature({"table": Out(TABLE_BITS), "frm": Out(6), "en": Out(1),
                              "data": In(WORD_BITS)})


class PosdataRom(wiring.Component):
    """Two synchronous read ports (one cycle latency; outputs hold while ``en`` is low):
    ``data`` is the posdata word, ``ends`` its two derived end bits.

    Ports
    -----
    a, b : In(ReadPort)
    """

    a: In(ReadPort)
    b: In(ReadPort)

    def elaborate(self, platform):
        m = Module()
        words = rom_image()
        image = [w | e << WORD_BITS for w, e in zip(words, end_image(words))]
        width = WORD_BITS + END_BITS
        slices = [(bit, 1) for bit in range(width)] if platform is not None else [(0, width)]
        words = {"a": [], "b": []}
        for low, bits in slices:
            mem = Memory(shape=bits, depth=ROM_DEPTH,
                         init=[w >> low & ((1 << bits) - 1) for w in image])
            m.submodules[f"bits{low}"] = mem
            for name, port in (("a", self.a), ("b", self.b)):
                r = mem.read_port()
                m.d.comb += [r.addr.eq(port.addr), r.en.eq(port.en)]
                words[name].append(r.data)
        for name, port in (("a", self.a), ("b", self.b)):
            word = Cat(*words[name])
            m.d.comb += [port.data.eq(word[:WORD_BITS]), port.ends.eq(word[WORD_BITS:])]
        return m


class StartsFromWalkRom(wiring.Component):
    """Serves a StartPort from a walk-ROM port: the start entry of (table, from) is the walk
    ROM's word at (table, from, from). The move generator reads its start entries this way, on
    the walk ROM's second port."""

    starts: In(StartPort)
    rom: Out(ReadPort)

    def elaborate(self, platform):
        m = Module()
        s = self.starts
        m.d.comb += [self.rom.addr.eq(rom_address(s.table, s.frm, s.frm)),
                     self.rom.en.eq(s.en), s.data.eq(self.rom.data)]
        return m


class StartRom(wiring.Component):
    """The 448 start entries as a memory of their own (one block RAM), with two synchronous read
    ports: the perft engine's two threads prefetch from it while both walk-ROM ports walk.

    Ports
    -----
    a, b : In(StartPort)
    """

    a: In(StartPort)
    b: In(StartPort)

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=WORD_BITS, depth=START_DEPTH,
                                        init=start_image(rom_image()))
        for port in (self.a, self.b):
            r = mem.read_port()
            m.d.comb += [r.addr.eq(start_address(port.table, port.frm)), r.en.eq(port.en),
                         port.data.eq(r.data)]
        return m

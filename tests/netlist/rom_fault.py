"""A ROM image that differs from the engine's by one word, given to synthesis only: the
netlist and bitstream checks must notice."""

import contextlib
import dataclasses

import posdata.hdl.gen.rom
from posdata.engine.rules.defs import KNIGHT
from posdata.hdl.image.variant import variant_image

G1, E2 = 6, 12


def faulty_address() -> int:
    """The dense ROM entry of the white knight on g1 at e2: the initial position walks it."""
    return variant_image().dense.address[KNIGHT, G1, E2]


@contextlib.contextmanager
def one_word_changed():
    """While active, the walk ROM (hdl.gen.rom.PosdataRom) is built from an image whose entry for
    Ng1 at e2 has nextpos and nextdir pointing home (g1): the knight's walk would end there,
    losing Nf3 and Nh3. Everything else (the start entries too) is the engine's."""
    rom = posdata.hdl.gen.rom
    original = rom.variant_image
    address = faulty_address()

    def changed(variant):
        image = original(variant)
        words, ends = list(image.dense.words), list(image.dense.ends)
        words[address] = (words[address] & ~0xFFF) | G1 | G1 << 6
        ends[address] = 0b11
        return dataclasses.replace(image, dense=dataclasses.replace(image.dense, words=words,
                                                                    ends=ends))

    rom.variant_image = changed
    try:
        yield address
    finally:
        rom.variant_image = original

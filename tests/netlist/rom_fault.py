"""A ROM image that differs from the engine's by one word, given to synthesis only: the
netlist and bitstream checks must notice."""

import contextlib

from posdata.hdl.image import dense as dense_image
from posdata.hdl.image.sparse import rom_image

KNIGHT_TABLE, G1, E2, F3 = 2, 6, 12, 21


def faulty_address() -> int:
    """The dense ROM entry of the white knight on g1 at e2: the initial position walks it."""
    return dense_image.dense_image(rom_image()).address[KNIGHT_TABLE, G1, E2]


@contextlib.contextmanager
def one_word_changed():
    """While active, the walk ROM (hdl.gen.rom.PosdataRom) is built from an image whose entry for
    Ng1 at e2 has nextpos and nextdir pointing home (g1): the knight's walk would end there,
    losing Nf3 and Nh3. Everything else (the start entries too) is the engine's."""
    original = dense_image.dense_image
    address = faulty_address()

    def changed(words=None, *addr_bits):
        image = original(words, *addr_bits)
        image.words[address] = (image.words[address] & ~0xFFF) | G1 | G1 << 6
        image.ends[address] = 0b11
        return image

    dense_image.dense_image = changed
    try:
        yield address
    finally:
        dense_image.dense_image = original

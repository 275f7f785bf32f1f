"""CRC-8 of the board protocol (``hdl.link.protocol.crc8``) in gateware: one byte per clock."""

from functools import reduce
from operator import xor

from amaranth import Cat

from .protocol import CRC_TABLE


def crc8_next(crc, byte):
    """The CRC after ``byte`` (8-bit Values in, an 8-bit Value out). The CRC is linear: each bit
    of the result is the XOR of the bits of ``crc ^ byte`` whose table entries have it set, so
    the protocol's table gives the network directly (a shift-and-Mux loop would nest eight
    deep and grow the compiled model exponentially)."""
    x = crc ^ byte
    return Cat(*(reduce(xor, [x[i] for i in range(8) if CRC_TABLE[1 << i] >> k & 1])
                 for k in range(8)))

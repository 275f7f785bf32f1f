"""The board's command protocol over the UART, shared by the gateware (``hdl.frontend``) and the
host (``sim.board_client``): one enum of command bytes and the byte layouts of their arguments
and replies. Pure Python (no amaranth), so the host imports it cheaply; the gateware matches
``m.Case(Cmd.PING)``, the host sends ``Cmd.PING.value``.

Every exchange starts with one command byte from the host, followed by that command's argument
bytes. Commands are ASCII letters so that a terminal can poke the board by hand.

=============  ======  ========================================  ===================================
command        byte    arguments (host -> board)                 reply (board -> host)
=============  ======  ========================================  ===================================
PING           ``P``   none                                      ``P O S`` version (4 bytes)
WRITE_SQUARE   ``W``   square (bits 5..0),                       none
                       colour | piece << 2
SET_POSITION   ``S``   side | castle << 1,                       none
                       ep (bit 7 valid, bits 5..0 square)
GENERATE       ``G``   none                                      3 bytes per move (the 21-bit move
                                                                 word, little-endian), then an end
                                                                 record: 3 bytes, bit 23 set, bits
                                                                 15..0 the number of moves
READ_CYCLES    ``C``   none                                      4 bytes little-endian: clock
                                                                 cycles of the last generation
=============  ======  ========================================  ===================================

Encodings (engine.defs): square a1 = 0 .. h8 = 63; colour WHITE 0, BLACK 1, EMPTY 2; piece
NO_PIECE 0 .. KING 6; castle WHITE_KINGSIDE 1, WHITE_QUEENSIDE 2, BLACK_KINGSIDE 4,
BLACK_QUEENSIDE 8; a move record's bit 23 is always 0.

Rules
-----
* Command bytes have bit 6 set, argument bytes never do (squares and the packed fields are
  below 64, the ep byte below 0xC0 with bit 6 clear): a board that missed a command byte ignores
  the stray arguments instead of running them as commands.
* Any other byte where a command is expected is ignored (no reply). ``0x00`` is never a command,
  so ``RESYNC`` (two zero bytes) brings the board back to waiting for a command from any state:
  the zeros complete a half-received command, or are ignored. (A half-received WRITE_SQUARE
  then writes a square, so the host reloads the whole board after a resync.)
* Requests and replies do not overlap, except by one byte: the receiver holds a single byte, so
  while a reply is going out the host may send one more byte (the client sends READ_CYCLES right
  behind GENERATE); anything beyond that is dropped.
* GENERATE cannot arrive while the generator is busy: the board reads no command until it has
  sent the end record.
* Squares written with WRITE_SQUARE and the SET_POSITION fields stay until overwritten (power-up:
  every square EMPTY, white to move, no castling, no en passant).
"""

from enum import IntEnum

PROTOCOL_VERSION = 1

#: the ULX3S's FT231X at its maximum (48 MHz / 16); the bitstream and the host must agree
DEFAULT_BAUD = 3_000_000

#: the first three bytes of the PING reply; the fourth is PROTOCOL_VERSION
PING_MAGIC = b"POS"
PING_REPLY = PING_MAGIC + bytes([PROTOCOL_VERSION])

MOVE_RECORD_BYTES = 3   #: one move, or the end record, in the GENERATE reply
END_FLAG = 1 << 23      #: marks the end record
END_COUNT_BITS = 16     #: the end record's move count, bits 15..0
CYCLES_BYTES = 4        #: the READ_CYCLES reply

RESYNC = bytes(2)       #: completes any half-received command (see the rules above)

EP_VALID = 0x80         #: SET_POSITION's ep byte: an en passant square is given


class Cmd(IntEnum):
    """Command bytes (8 bits)."""
    #: reply PING_REPLY: identifies the design and the protocol version
    PING = ord("P")
    #: two argument bytes (write_square_args); no reply
    WRITE_SQUARE = ord("W")
    #: two argument bytes (position_args); no reply
    SET_POSITION = ord("S")
    #: reply: move records, then the end record
    GENERATE = ord("G")
    #: reply: CYCLES_BYTES bytes, little-endian
    READ_CYCLES = ord("C")


ARGUMENT_FREE_BIT = 0x40  #: set in every command byte, clear in every argument byte
assert all(0 < c < 256 and c & ARGUMENT_FREE_BIT for c in Cmd)


# --- Argument bytes (host side packs, the gateware unpacks the same fields) --------------------

def write_square_args(sq: int, color: int, piece: int) -> bytes:
    """WRITE_SQUARE's two argument bytes."""
    return bytes([sq & 63, (color & 3) | (piece & 7) << 2])


def position_args(side: int, castle: int, ep_valid: int, ep_sq: int) -> bytes:
    """SET_POSITION's two argument bytes."""
    return bytes([(side & 1) | (castle & 15) << 1, (EP_VALID if ep_valid else 0) | (ep_sq & 63)])


# --- Reply records (the gateware packs, the host unpacks) ---------------------------------------

def end_record(count: int) -> bytes:
    return (END_FLAG | count).to_bytes(MOVE_RECORD_BYTES, "little")


def parse_record(record: bytes) -> tuple[bool, int]:
    """A GENERATE record: ``(False, move word)`` or ``(True, move count)`` for the end record."""
    value = int.from_bytes(record, "little")
    if value & END_FLAG:
        return True, value & ((1 << END_COUNT_BITS) - 1)
    return False, value

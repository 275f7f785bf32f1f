"""The board's command protocol, version 4: the source of truth for the gateware
(``hdl.link.chip_frontend``) and the host (``sim.drivers.fpga_board``). Plain Python (no amaranth),
so the host imports it cheaply; the gateware matches ``m.Case(Cmd.PING)``, the host sends
``Cmd.PING.value``.

Frames
------
Every command and every reply is a frame closed by a CRC-8 (polynomial 0x07, initial value 0,
no reflection: ``crc8``) over all of its bytes but the SYNC byte and the CRC itself::

    command (host -> board):  SYNC  cmd  engine  length  payload[length]  crc
    reply   (board -> host):  status  cmd  length_lo  length_hi  payload[length]  crc

* ``SYNC`` (0xA5) starts a command; the board ignores any other byte while it waits for one.
* ``engine`` is an engine number below the chip's engine count (PING tells it) or
  ``ENGINE_ALL``. This chip's engines load and stop together: LOAD, UPDATE, STATUS and ABORT act on
  all of them whatever valid address is given. PERFT addressed to ``ENGINE_ALL`` shares the count
  among every engine; addressed to one engine, that engine counts alone (counting on each in
  turn names a faulty engine). GENERATE and LEGAL list on engine 0, so they take 0 or
  ``ENGINE_ALL`` only. Hosts send ``ENGINE_ALL`` unless they mean one engine.
* A reply echoes the command byte (as received, even an unknown one) and carries a status:
  ``Err.OK`` with the command's payload, or an error code with no payload. The length is
  little-endian; multi-byte fields in payloads are too.
* Every well-formed frame gets exactly one reply. The checks run in this order and the first
  that fails answers: CRC (BAD_CRC), command (UNKNOWN_COMMAND), engine (BAD_ENGINE), payload
  length (BAD_LENGTH), whether the chip can take it now (BUSY), the arguments (BAD_ARGUMENT).
  A refused command changes nothing; the board stays usable.

Getting back in step (resync)
-----------------------------
The board's receiver drops a half-received command once no byte has arrived for
``FRAME_TIMEOUT_BYTES`` byte times (about 3.4 ms at 3 Mbaud) and waits for SYNC again; a
dropped frame is not answered. So a host that lost step (a read that timed out, a write cut
short, a new session) sends nothing for at least that long, discards whatever arrives until the
line is quiet, and pings. A garbled length byte can make the board take the start of the next
command as payload: that command is then answered BAD_CRC, and the host resyncs the same way.

Pipelining: the board holds one received command while it executes or answers the one before,
so a host may send a second command before the first reply has arrived (the client sends UPDATE
and GENERATE together), but not a third.

Commands
--------
=========  ======  ===================================  ==========================================
command    byte    payload (host -> board)              reply payload (board -> host, status OK)
=========  ======  ===================================  ==========================================
PING       ``P``   none                                 ``P O S``, version (4), engines, threads
                                                        per engine, variant (0: chess), self-test
                                                        (``SelfTest``): 8 bytes
LOAD       ``L``   64 square codes (a1 .. h8), then     none
                   the 3 state bytes: 67 bytes
UPDATE     ``U``   the 3 state bytes, then (square,     none
                   square code) pairs: 3 + 2k bytes,
                   k = 0 .. 64
GENERATE   ``G``   none                                 the root's pseudo-legal moves in
                                                        generation order (promotions expanded):
                                                        a listing
LEGAL      ``M``   none                                 the root's legal moves: a listing (move
                                                        words carry from, to, the promotion flag
                                                        and piece; no other flags)
PERFT      ``C``   depth (0 .. 12), flags (bit 0:       none, at once: the count runs on
                   bulk), split ply (0 .. depth - 1;    (STATUS follows it)
                   0 when depth <= 1): 3 bytes
STATUS     ``S``   none                                 state (``State``), flags (bit 0 bulk,
                                                        bit 1 the power-up self-test's count),
                                                        depth, split, leaves (8 bytes), clocks
                                                        (8 bytes): 20 bytes. A count whose move
                                                        stack overflowed is answered OVERFLOW
ABORT      ``A``   none                                 none: a running count stops (state
                                                        ABORTED, its leaves and clocks as they
                                                        stood); nothing running: nothing happens
SEARCH     ``J``   alpha, beta (2 bytes each, signed),  none, at once: the job runs on (RESULT
                   remaining depth (0 .. 6), ply from   follows it) on the thread the engine
                   the search's root (0 .. 127), check  byte names (``ENGINE_ALL``: the lowest
                   extensions made above the job (0 ..  free one). Search boards only
                   4), the halfmove counter (0 .. 127,
                   saturated), then k = 0 .. 32
                   earlier positions' hashes, oldest
                   first, 5 bytes each (36 bits, the
                   top 4 zero; k <= the halfmove
                   counter): 8 + 5k bytes; the loaded
                   position is the job's
RESULT     ``R``   none                                 of the job on the thread the engine byte
                                                        names (``ENGINE_ALL``: the last job
                                                        started): state (``State``), flags (bit
                                                        0: a best move, bit 1: the job was
                                                        refused), score (2, signed), best move
                                                        (3: the 21-bit move word), nodes (8),
                                                        clocks (8): 23 bytes. Search boards only
=========  ======  ===================================  ==========================================

* Square code (``hdl.common.contract.square_code``): colour | piece << 2 (``engine.rules.defs``:
  WHITE 0, BLACK 1, EMPTY 2; NO_PIECE 0 .. KING 6); an empty square is 2, a white king 0x18. Any
  other code is BAD_ARGUMENT.
* State bytes: ``side | castle << 1`` (castle: WK 1, WQ 2, BK 4, BQ 8; bits 7..5 zero), then en
  passant: bit 7 set when there is an en passant square, bits 5..0 the square (bit 6 zero),
  then en passant's victim: bits 5..0 the square of the pawn an en passant capture takes (the
  one that passed; bits 7..6 zero), 0 without an en passant square. The victim comes with the
  position because it need not stand straight beyond the square passed (Berolina's pawn passes
  diagonally); a board whose chip derives it (no modes) checks the byte and ignores it.
  UPDATE's square bytes are 0 .. 63.
* A listing: cycles (4 bytes: the generator core's clocks for the root), the move count (2
  bytes), then 3 bytes per move: the 21-bit move word of ``engine.rules.defs``. The board buffers up
  to ``LISTING_CAPACITY`` moves (more than any position has): a listing that does not fit is
  answered OVERFLOW.
* BUSY: LOAD, UPDATE, GENERATE, LEGAL and PERFT need the chip idle (no count running); ABORT is
  refused while the power-up self-test counts (its result is what the LEDs show).
* A count's result stays readable with STATUS until the next PERFT or ABORT. The loaded
  position stays until overwritten (an ABORT reloads the chip from the board's copy of it).
* Power-up: the board loads the initial position, counts bulk perft(``SELF_TEST_DEPTH``) and
  compares the leaves with the published count; PING reports the verdict, STATUS the count.
* A search board (``hdl.link.search_frontend``) carries search threads instead of the perft
  chip: its PING gives 0 engines and its threads; it answers PING, LOAD, UPDATE, SEARCH, RESULT
  and ABORT (ABORT stops jobs and reloads the idle threads' boards from the board's copy), the
  others UNSUPPORTED; the perft board and the iCEBreaker answer SEARCH and RESULT UNSUPPORTED.
  A job's window lies within +-(MATE + 1) with alpha < beta (else BAD_ARGUMENT), as the
  thread takes it (``engine.search.leaf_search``). SEARCH's hashes are the positions the job's
  repetition test compares with (``sim.drivers.search_job.history_hashes``: the last
  min(halfmove counter, ``REPETITION_PLIES``) before the job's root, each the low ``HASH_BITS``
  of its hash); a length other than 8 + 5k is BAD_LENGTH, like an UPDATE with half a pair.
* A search board's engine byte names a thread (below PING's threads; BAD_ENGINE above) or
  ``ENGINE_ALL``. SEARCH to a thread is BUSY while that thread runs a job; SEARCH to
  ``ENGINE_ALL``, LOAD and UPDATE while every thread runs one. RESULT to ``ENGINE_ALL`` gives
  the last job started; ABORT to a thread stops its job, to ``ENGINE_ALL`` every job. A job
  takes the board's copy of the position as it starts, so the host loads the next job's
  position while the other threads search.
"""

from enum import IntEnum

from posdata.engine.rules.defs import MAX_MOVES
from posdata.engine.search.leaf_search import HASH_BITS, REPETITION_PLIES

from ..common.contract import DEPTH_BITS, MAX_DEPTH, SEARCH_BYTES, search_arguments

#: 3: the search board holds a batch's commands (SEARCH_RX_BYTES); 4: the state carries en
#: passant's victim (VICTIM_BYTE)
PROTOCOL_VERSION = 4

#: the ULX3S's FT231X at its maximum (48 MHz / 16); the bitstream and the host must agree
DEFAULT_BAUD = 3_000_000

SYNC = 0xA5             #: starts every command frame
CRC_POLY = 0x07         #: CRC-8: x^8 + x^2 + x + 1
ENGINE_ALL = 0xFF       #: the engine address of every engine at once
PING_MAGIC = b"POS"
VARIANT_CHESS = 0       #: PING's variant byte: orthodox chess
SELF_TEST_DEPTH = 4     #: the power-up count: bulk perft(4) of the initial position

#: a half-received command is dropped after this many byte times without a byte
FRAME_TIMEOUT_BYTES = 1024
UART_FRAME_BITS = 10    #: start + 8 data + stop: one byte time is 10 bit times

COMMAND_HEADER = 4      #: SYNC, cmd, engine, length
REPLY_HEADER = 4        #: status, cmd, length (2)
MAX_COMMAND_PAYLOAD = 255
STATE_BYTES = 3         #: side | castle << 1, en passant, en passant's victim
VICTIM_BYTE = 2         #: the victim's place among the state bytes
LOAD_BYTES = 64 + STATE_BYTES
MAX_UPDATE_SQUARES = 64

LISTING_CAPACITY = MAX_MOVES  #: moves the board buffers for a listing reply
LISTING_HEADER = 6            #: cycles (4), count (2)
MOVE_BYTES = 3
PING_BYTES = 8
STATUS_BYTES = 20
HASH_BYTES = (HASH_BITS + 7) // 8  #: SEARCH's earlier positions: a hash each, little-endian
MAX_SEARCH_HISTORY = REPETITION_PLIES  #: ... up to the thread's repetition span
#: received bytes a search board holds beyond the command in hand, so that a host writes a
#: batch's jobs (a LOAD or UPDATE and a SEARCH each) in one write, and its threads' RESULT
#: polls in another: eight jobs of the longest frames (72 + 173 bytes) fit
SEARCH_RX_BYTES = 2048
RESULT_BYTES = 23       #: state, flags, score (2), best move (3), nodes (8), clocks (8)
FLAG_BEST = 0x01        #: RESULT's flags: the job has a best move
FLAG_REFUSED = 0x02     #: RESULT's flags: the thread refused the job
LEAVES_BYTES = CLOCKS_BYTES = 8

EP_VALID = 0x80         #: the en passant byte: an en passant square is given
FLAG_BULK = 0x01        #: PERFT's and STATUS's flags
FLAG_SELF_TEST = 0x02   #: STATUS's flags: the count is the power-up self-test


class Cmd(IntEnum):
    """Command bytes (ASCII letters, readable in a hex dump)."""
    PING = ord("P")
    LOAD = ord("L")
    UPDATE = ord("U")
    GENERATE = ord("G")
    LEGAL = ord("M")
    PERFT = ord("C")
    STATUS = ord("S")
    ABORT = ord("A")
    SEARCH = ord("J")
    RESULT = ord("R")


class Err(IntEnum):
    """A reply's status byte: OK, or why the command was refused."""
    OK = 0
    BAD_CRC = 1           #: the command's CRC did not match (its cmd byte is echoed as received)
    UNKNOWN_COMMAND = 2
    BAD_ENGINE = 3        #: no such engine, or one this command cannot address
    BAD_LENGTH = 4        #: the payload length does not fit the command
    BUSY = 5              #: a count (or the power-up self-test) is running
    BAD_ARGUMENT = 6      #: a depth or split out of range, a bad square code, a reserved bit set,
                          #: a search job's field out of range
    OVERFLOW = 7          #: a move stack (count) or the listing buffer overflowed: no number
    UNSUPPORTED = 8       #: a board without the perft chip (the iCEBreaker's): PERFT, LEGAL,
                          #: STATUS, ABORT (its PING gives 0 engines)


class State(IntEnum):
    """STATUS's state byte."""
    IDLE = 0      #: no count since power-up
    RUNNING = 1   #: leaves and clocks so far
    DONE = 2      #: leaves and clocks are the result
    ABORTED = 3   #: leaves and clocks as they stood when the count was stopped


class SelfTest(IntEnum):
    """PING's self-test byte (and the front end's ``self_test`` output)."""
    NONE = 0      #: built without one
    RUNNING = 1
    PASSED = 2
    FAILED = 3


#: the payload lengths each command accepts (UPDATE: and only the state and whole pairs,
#: ``update_length_ok``; SEARCH: and only whole hashes, ``search_lengths``)
PAYLOAD_LENGTHS = {
    Cmd.PING: (0, 0), Cmd.LOAD: (LOAD_BYTES, LOAD_BYTES),
    Cmd.UPDATE: (STATE_BYTES, STATE_BYTES + 2 * MAX_UPDATE_SQUARES),
    Cmd.GENERATE: (0, 0), Cmd.LEGAL: (0, 0), Cmd.PERFT: (3, 3), Cmd.STATUS: (0, 0),
    Cmd.ABORT: (0, 0), Cmd.RESULT: (0, 0),
    Cmd.SEARCH: (SEARCH_BYTES, SEARCH_BYTES + HASH_BYTES * MAX_SEARCH_HISTORY),
}
#: what each kind of board answers (the rest of ``Cmd``: UNSUPPORTED)
PERFT_BOARD = frozenset(Cmd) - {Cmd.SEARCH, Cmd.RESULT}
SEARCH_BOARD = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.SEARCH, Cmd.RESULT, Cmd.ABORT})
#: commands that need the chip idle (BUSY while a count runs)
NEEDS_IDLE = frozenset({Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE, Cmd.LEGAL, Cmd.PERFT,
                        Cmd.SEARCH})
#: commands addressed to the engine that lists (engine 0 or ENGINE_ALL only)
LISTINGS = frozenset({Cmd.GENERATE, Cmd.LEGAL})

assert all(0 < c < 256 and c != SYNC for c in Cmd)
assert max(hi for _, hi in PAYLOAD_LENGTHS.values()) <= MAX_COMMAND_PAYLOAD
assert MAX_DEPTH < 1 << DEPTH_BITS


# --- CRC-8 -------------------------------------------------------------------------------------

def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLY if crc & 0x80 else crc << 1) & 0xFF
        table.append(crc)
    return tuple(table)


CRC_TABLE = _crc_table()


def crc8(data: bytes, crc: int = 0) -> int:
    """CRC-8/SMBUS: ``crc8(b"123456789") == 0xF4``; a frame followed by its CRC gives 0."""
    for b in data:
        crc = CRC_TABLE[crc ^ b]
    return crc


# --- Payloads (the host packs, the gateware checks and unpacks) ---------------------------------

def variant_number(variant) -> int:
    """PING's variant byte: the variant's place in engine.rules.variants.VARIANTS (chess is 0)."""
    from posdata.engine.rules.variants import VARIANT_NAMES
    return VARIANT_NAMES.index(variant.name)


def state_bytes(side: int, castle: int, ep_valid: int, ep_sq: int, ep_victim: int = 0) -> bytes:
    """``ep_victim``: the pawn an en passant capture takes (sent as 0 without an en passant
    square)."""
    return bytes([(side & 1) | (castle & 15) << 1, (EP_VALID if ep_valid else 0) | (ep_sq & 63),
                  ep_victim & 63 if ep_valid else 0])


def update_length_ok(length: int) -> bool:
    """Is ``length`` an UPDATE payload's: the state bytes, then whole (square, code) pairs?"""
    lo, hi = PAYLOAD_LENGTHS[Cmd.UPDATE]
    return lo <= length <= hi and (length - STATE_BYTES) % 2 == 0


def load_payload(codes: bytes, state: bytes) -> bytes:
    assert len(codes) == 64 and len(state) == STATE_BYTES
    return bytes(codes) + state


def update_payload(state: bytes, writes) -> bytes:
    """``writes``: (square, square code) pairs."""
    return bytes(state) + bytes(v for sq, code in writes for v in (sq, code))


def perft_payload(depth: int, bulk: bool, split: int) -> bytes:
    return bytes([depth, FLAG_BULK if bulk else 0, split])


# --- Frames ------------------------------------------------------------------------------------

def command_frame(cmd: int, payload: bytes = b"", engine: int = ENGINE_ALL) -> bytes:
    body = bytes([int(cmd), engine, len(payload)]) + bytes(payload)
    return bytes([SYNC]) + body + bytes([crc8(body)])


def reply_frame(status: int, cmd: int, payload: bytes = b"") -> bytes:
    """A reply as the board sends it (the host's fakes and the tests build them)."""
    body = bytes([int(status), int(cmd)]) + len(payload).to_bytes(2, "little") + bytes(payload)
    return body + bytes([crc8(body)])


def ping_payload(engines: int, threads: int, self_test: int,
                 variant: int = VARIANT_CHESS) -> bytes:
    return PING_MAGIC + bytes([PROTOCOL_VERSION, engines, threads, variant, self_test])


def status_payload(state: int, flags: int, depth: int, split: int, leaves: int,
                   clocks: int) -> bytes:
    return (bytes([state, flags, depth, split]) + leaves.to_bytes(LEAVES_BYTES, "little")
            + clocks.to_bytes(CLOCKS_BYTES, "little"))


def search_lengths() -> frozenset[int]:
    """The payload lengths SEARCH takes: its job and 0 .. MAX_SEARCH_HISTORY whole hashes."""
    return frozenset(SEARCH_BYTES + HASH_BYTES * k for k in range(MAX_SEARCH_HISTORY + 1))


def search_payload(alpha: int, beta: int, depth: int, ply: int, extensions: int = 0,
                   fifty: int = 0, hashes=()) -> bytes:
    """``fifty``: the halfmove counter as sent (the host saturates it); ``hashes``: the
    earlier positions', oldest first."""
    return (search_arguments(alpha=alpha, beta=beta, depth=depth, ply=ply, ext=extensions,
                             fifty=fifty)
            + b"".join(h.to_bytes(HASH_BYTES, "little") for h in hashes))


def result_payload(state: int, flags: int, score: int, best: int, nodes: int,
                   clocks: int) -> bytes:
    return (bytes([state, flags]) + score.to_bytes(2, "little", signed=True)
            + best.to_bytes(MOVE_BYTES, "little") + nodes.to_bytes(8, "little")
            + clocks.to_bytes(8, "little"))


def listing_payload(cycles: int, moves) -> bytes:
    return (cycles.to_bytes(4, "little") + len(moves).to_bytes(2, "little")
            + b"".join(m.to_bytes(MOVE_BYTES, "little") for m in moves))

"""The protocol's plain-Python half (hdl.link.protocol): the CRC, the frames, the payload layouts,
the tables the gateware is built from; and the gateware CRC against the Python one."""

import random
import subprocess
import sys

from amaranth import Const
from amaranth.sim import Simulator

from posdata.engine.rules.defs import BLACK, EMPTY, KING, NO_PIECE, PAWN, WHITE
from posdata.hdl.common.contract import MAX_DEPTH, VALID_SQUARE_CODES, split_in_range, square_code
from posdata.hdl.link.crc8 import crc8_next
from posdata.hdl.link.protocol import (
    CRC_TABLE,
    ENGINE_ALL,
    LISTINGS,
    NEEDS_IDLE,
    PAYLOAD_LENGTHS,
    SYNC,
    Cmd,
    Err,
    SelfTest,
    State,
    command_frame,
    crc8,
    listing_payload,
    load_payload,
    perft_payload,
    ping_payload,
    reply_frame,
    state_bytes,
    status_payload,
    update_length_ok,
    update_payload,
)


def test_crc8_check_value_and_residue():
    assert crc8(b"123456789") == 0xF4  # CRC-8/SMBUS's published check value
    data = random.Random(8).randbytes(300)
    assert crc8(data + bytes([crc8(data)])) == 0
    assert crc8(b"") == 0 and len(set(CRC_TABLE)) == 256


def test_crc8_catches_every_single_bit_error():
    frame = command_frame(Cmd.PERFT, perft_payload(5, True, 2))
    for i in range(1, len(frame) * 8):
        bad = bytearray(frame)
        bad[i // 8] ^= 1 << (i % 8)
        if i // 8:  # the SYNC byte is outside the CRC
            assert crc8(bytes(bad[1:])) != 0


def test_gateware_crc_equals_the_table():
    cases = [(c, b) for c in (0, 1, 0x80, 0xFF, 0x5A) for b in range(256)]
    got = []

    async def bench(ctx):
        for c, b in cases:
            got.append(ctx.get(crc8_next(Const(c, 8), Const(b, 8))))

    sim = Simulator(__import__("amaranth").Module())
    sim.add_testbench(bench)
    sim.run()
    assert got == [crc8(bytes([b]), c) for c, b in cases]


def test_command_frame_layout():
    frame = command_frame(Cmd.PERFT, bytes([4, 1, 2]), engine=0)
    assert frame[:5] == bytes([SYNC, ord("C"), 0, 3, 4])
    assert frame[-1] == crc8(frame[1:-1])
    assert command_frame(Cmd.PING) == bytes([SYNC, ord("P"), ENGINE_ALL, 0, crc8(b"P\xff\x00")])


def test_reply_frame_layout():
    frame = reply_frame(Err.OK, Cmd.PING, b"abc")
    assert frame[:4] == bytes([0, ord("P"), 3, 0]) and frame[4:7] == b"abc"
    assert crc8(frame) == 0
    long = reply_frame(Err.OK, Cmd.GENERATE, bytes(300))
    assert long[2:4] == (300).to_bytes(2, "little")
    assert reply_frame(Err.BUSY, Cmd.PERFT)[:4] == bytes([Err.BUSY, ord("C"), 0, 0])


def test_payload_layouts():
    assert state_bytes(1, 0b1010, 1, 43) == bytes([1 | 0b1010 << 1, 0x80 | 43, 0])
    assert state_bytes(0, 15, 0, 0) == bytes([15 << 1, 0, 0])
    # en passant's victim (here Berolina's beside d3) is sent with a square, else 0
    assert state_bytes(1, 0, 1, 19, 26) == bytes([1, 0x80 | 19, 26])
    assert state_bytes(1, 0, 0, 19, 26) == bytes([1, 19, 0])
    assert square_code(WHITE, KING) == 0x18 and square_code(EMPTY, NO_PIECE) == 2
    codes = bytes(range(64))
    assert load_payload(codes, b"\x01\x02\x03") == codes + b"\x01\x02\x03"
    assert update_payload(b"abc", [(12, 5), (63, 2)]) == b"abc" + bytes([12, 5, 63, 2])
    assert perft_payload(6, True, 2) == bytes([6, 1, 2])
    assert perft_payload(3, False, 0) == bytes([3, 0, 0])
    ping = ping_payload(2, 2, SelfTest.PASSED)
    assert ping == b"POS" + bytes([4, 2, 2, 0, SelfTest.PASSED])
    status = status_payload(State.DONE, 1, 4, 2, 197281, 1 << 40)
    assert status[:4] == bytes([2, 1, 4, 2]) and len(status) == 20
    assert int.from_bytes(status[4:12], "little") == 197281
    assert int.from_bytes(status[12:20], "little") == 1 << 40
    listing = listing_payload(1234, [0x1FFFFF, 5])
    assert listing == (1234).to_bytes(4, "little") + b"\x02\x00" + b"\xff\xff\x1f\x05\x00\x00"


def test_square_codes():
    assert len(VALID_SQUARE_CODES) == 13
    assert square_code(BLACK, PAWN) in VALID_SQUARE_CODES
    for bad in (square_code(EMPTY, PAWN), square_code(WHITE, NO_PIECE), square_code(3, KING),
                square_code(WHITE, 7), 32 | square_code(WHITE, KING)):
        assert bad not in VALID_SQUARE_CODES


def test_split_range():
    assert split_in_range(0, 0) and split_in_range(1, 0) and not split_in_range(1, 1)
    assert split_in_range(5, 4) and not split_in_range(5, 5) and not split_in_range(3, -1)


def test_tables_cover_every_command():
    assert set(PAYLOAD_LENGTHS) == set(Cmd)
    assert NEEDS_IDLE < set(Cmd) and LISTINGS <= NEEDS_IDLE
    assert len({c.value for c in Cmd}) == len(Cmd) and SYNC not in {c.value for c in Cmd}
    assert Err.OK == 0 and len({e.value for e in Err}) == len(Err)
    assert MAX_DEPTH == 12


def test_host_side_imports_no_amaranth():
    code = ("import sys, posdata.sim.cli, posdata.sim.drivers.fpga_board, "
            "posdata.hdl.link.protocol; "
            "assert 'amaranth' not in sys.modules, 'amaranth imported'; "
            "assert 'serial' not in sys.modules, 'pyserial imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_update_takes_the_state_and_whole_pairs():
    assert [n for n in range(140) if update_length_ok(n)] == list(range(3, 3 + 2 * 64 + 1, 2))

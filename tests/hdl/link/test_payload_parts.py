"""The front ends' parts that read a held command's payload, each alone in Amaranth's simulator:
the cursor (hdl.link.cursor) in both its forms against the arithmetic it stands for, the
argument check (hdl.link.arguments) against the protocol's argument rules written out here, the
position writer (hdl.link.position_writer) against the squares and state a position's LOAD and
UPDATE payloads (hdl.link.protocol's packers) carry. Each bench runs to a deadline and must
report that it finished."""

import random

import pytest
from amaranth import Module
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.rules.variants import get_variant
from posdata.hdl.chip.modes import RootWithVictim
from posdata.hdl.common.contract import square_code
from posdata.hdl.link.arguments import ArgumentCheck
from posdata.hdl.link.cursor import PayloadCursor
from posdata.hdl.link.position_writer import PositionWriter
from posdata.hdl.link.protocol import Cmd, load_payload, perft_payload, state_bytes, update_payload
from posdata.sim.drivers.fpga_board import board_state

PERIOD = 1e-8


def simulate(dut, bench, clocks):
    finished = []

    async def watched(ctx):
        await bench(ctx)
        finished.append(True)

    sim = Simulator(dut)
    sim.add_clock(PERIOD)
    sim.add_testbench(watched)
    sim.run_until(clocks * PERIOD)
    assert finished, "the bench did not finish before its deadline"


def codes_and_state(board):
    codes = bytes(square_code(c, p) for c, p in zip(board.color, board.piece))
    return codes, board_state(board)


# --- The cursor ----------------------------------------------------------------------------------

@pytest.mark.parametrize("registered", [False, True], ids=["ecp5", "ice40"])
def test_cursor_walks_a_payload(registered):
    """Behind a block RAM holding the payload, as the link's is: ``byte`` is payload byte
    ``index`` = addr - 2, ``started`` from addr 2, ``last`` at addr length + 1."""
    payload = bytes(random.Random(7).randrange(256) for _ in range(40))
    m = Module()
    m.submodules.cursor = cursor = PayloadCursor(registered=registered)
    m.submodules.memory = memory = Memory(shape=8, depth=256, init=list(payload))
    read = memory.read_port()
    m.d.comb += [read.addr.eq(cursor.payload.addr), cursor.payload.data.eq(read.data)]
    seen = []

    async def bench(ctx):
        for length in (40, 3, 1):
            ctx.set(cursor.length, length)
            ctx.set(cursor.restart, 1)
            await ctx.tick()
            ctx.set(cursor.restart, 0)
            ctx.set(cursor.advance, 1)
            for addr in range(length + 2):
                assert ctx.get(cursor.addr) == addr
                seen.append((length, addr, ctx.get(cursor.started), ctx.get(cursor.last),
                             ctx.get(cursor.current.index), ctx.get(cursor.current.byte)))
                await ctx.tick()
            ctx.set(cursor.advance, 0)

    simulate(m, bench, 200)
    want = [(n, a, a >= 2, a == n + 1, (a - 2) % 256, payload[a - 2] if a >= 2 else None)
            for n in (40, 3, 1) for a in range(n + 2)]
    assert [s[:5] for s in seen] == [w[:5] for w in want]
    assert [s[5] for s in seen if s[2]] == [w[5] for w in want if w[2]]


# --- The argument check --------------------------------------------------------------------------

ORTHODOX_CODES = {2} | {c | p << 2 for c in (0, 1) for p in range(1, 7)}


def expected_bad(cmd, payload, codes=ORTHODOX_CODES):
    """The protocol's argument rules (its command table and notes)."""
    if cmd == Cmd.PERFT:
        depth, flags, split = payload
        return depth > 12 or flags & ~1 != 0 or not (split == 0 or split < depth)
    if cmd == Cmd.LOAD:
        squares, state = payload[:64], payload[64:]
    else:
        state, pairs = payload[:3], payload[3:]
        squares = pairs[1::2]
        if any(sq > 63 for sq in pairs[::2]):
            return True
    side_castle, ep, victim = state
    return (any(c not in codes for c in squares) or side_castle >> 5 != 0 or ep & 0x40 != 0
            or victim >> 6 != 0 or victim != 0 and not ep & 0x80)


def check_payloads(dut, cases):
    """Each (cmd, payload) judged byte by byte; ``bad`` and PERFT's kept arguments after each."""
    got = []

    async def bench(ctx):
        for cmd, payload in cases:
            ctx.set(dut.clear, 1)
            await ctx.tick()
            ctx.set(dut.clear, 0)
            for name, value in (("load", Cmd.LOAD), ("update", Cmd.UPDATE), ("perft", Cmd.PERFT)):
                if hasattr(dut, name):
                    ctx.set(getattr(dut, name), cmd == value)
            ctx.set(dut.check, 1)
            for i, byte in enumerate(payload):
                ctx.set(dut.current.byte, byte)
                ctx.set(dut.current.index, i)
                await ctx.tick()
            ctx.set(dut.check, 0)
            kept = (tuple(ctx.get(getattr(dut, f)) for f in ("depth", "flags", "split"))
                    if cmd == Cmd.PERFT else None)
            got.append((bool(ctx.get(dut.bad)), kept))

    simulate(dut, bench, 80 * len(cases))
    return got


def position_cases():
    rng = random.Random(11)
    cases = []
    for p in STANDARD_POSITIONS[:3]:
        codes, state = codes_and_state(Board(p.fen))
        cases.append((Cmd.LOAD, load_payload(codes, state)))
        writes = [(sq, codes[sq]) for sq in rng.sample(range(64), 5)]
        cases.append((Cmd.UPDATE, update_payload(state, writes)))
    good_load, good_update = cases[0][1], cases[1][1]
    # en passant's victim: with the square (Berolina's beside d3), without it, reserved bits
    for state in (state_bytes(1, 0, 1, 19, 26), bytes([1, 19, 26]), bytes([1, 0x80 | 19, 0x5A])):
        cases += [(Cmd.LOAD, good_load[:64] + state), (Cmd.UPDATE, state + good_update[3:])]
    for _ in range(40):  # one byte spoiled: a code, a state bit, a square number
        cmd, payload = rng.choice([(Cmd.LOAD, good_load), (Cmd.UPDATE, good_update)])
        payload = bytearray(payload)
        payload[rng.randrange(len(payload))] = rng.choice(
            [rng.randrange(256), 1 << rng.randrange(8), 0x1F, 7 << 2, 64, 0x20, 0x40])
        cases.append((cmd, bytes(payload)))
    return cases


def test_argument_check_judges_position_payloads():
    cases = position_cases()
    got = check_payloads(ArgumentCheck(), cases)
    want = [(expected_bad(cmd, payload), None) for cmd, payload in cases]
    assert got == want
    assert 10 < sum(bad for bad, _ in want) < len(want) - 10  # both verdicts are exercised


def test_argument_check_judges_and_keeps_perft_arguments():
    cases = [(Cmd.PERFT, perft_payload(d, b, s)) for d, b, s in (
        (5, True, 2), (0, False, 0), (1, True, 0), (12, False, 11), (13, True, 2), (4, True, 4),
        (0, True, 1), (6, False, 7))]
    cases += [(Cmd.PERFT, bytes([3, 2, 1])), (Cmd.PERFT, bytes([3, 0x81, 1]))]  # reserved flags
    got = check_payloads(ArgumentCheck(perft=True), cases)
    want = [(expected_bad(cmd, payload), tuple(payload)) for cmd, payload in cases]
    assert got == want


def test_argument_check_takes_the_variants_codes():
    """Chigorin's chancellor (piece code 7) is a square code on its board, not on chess's."""
    chigorin = get_variant("chigorin")
    board = Board(chigorin.start_fen, chigorin)
    codes, state = codes_and_state(board)
    assert 7 in {c >> 2 for c in codes}
    case = [(Cmd.LOAD, load_payload(codes, state))]
    assert check_payloads(ArgumentCheck(chigorin), case) == [(False, None)]
    assert check_payloads(ArgumentCheck(), case) == [(True, None)]


# --- The position writer -------------------------------------------------------------------------

def write_payloads(dut, cases, victim=False):
    """What the board's write port and the root show for each (cmd, payload) written byte by
    byte: (square, code) per pulse, then the root's fields."""
    got = []

    async def bench(ctx):
        for cmd, payload in cases:
            ctx.set(dut.load, cmd == Cmd.LOAD)
            ctx.set(dut.write, 1)
            writes = []
            for i, byte in enumerate([*payload, None]):
                if byte is None:
                    ctx.set(dut.write, 0)
                else:
                    ctx.set(dut.current.byte, byte)
                    ctx.set(dut.current.index, i)
                await ctx.tick()
                if ctx.get(dut.wr_en):
                    writes.append((ctx.get(dut.wr_sq), ctx.get(dut.wr_code)))
            root = ctx.get(dut.root)
            fields = (root.side, root.castle, root.ep_valid, root.ep_sq)
            got.append((writes, (*fields, root.ep_victim) if victim else fields))

    simulate(dut, bench, 80 * len(cases))
    return got


def test_position_writer_writes_load_and_update():
    start = {"side": 0, "castle": 15, "ep_valid": 0, "ep_sq": 0}
    board = Board("4k3/8/8/3pP3/8/8/8/R3K3 w Q d6 0 1")
    codes, state = codes_and_state(board)
    moved = [(4, square_code(2, 0)), (6, codes[4]), (7, square_code(2, 0)), (5, codes[7])]
    cases = [(Cmd.LOAD, load_payload(codes, state)),
             (Cmd.UPDATE, update_payload(state_bytes(1, 0, 0, 0), moved))]
    got = write_payloads(PositionWriter(start), cases)
    assert got[0] == (list(enumerate(codes)), (0, 1 << 1, 1, 43))  # white: Q; e.p. on d6
    assert got[1] == (moved, (1, 0, 0, 0))


def test_position_writer_takes_en_passant_s_victim_with_modes():
    """A chip with modes takes the victim the host sends: Berolina's beside the square passed
    (which no rule on the en passant square and the side finds), 0 without en passant."""
    variant = get_variant("berolina")
    board = Board("4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", variant)
    codes, state = codes_and_state(board)
    assert state[2] == board.ep_victim() == 25  # b4, not c4 beyond c3
    start = {"side": 0, "castle": 0, "ep_valid": 0, "ep_sq": 0, "ep_victim": 0}
    cases = [(Cmd.LOAD, load_payload(codes, state)),
             (Cmd.UPDATE, update_payload(state_bytes(0, 0, 0, 0), [])),
             (Cmd.UPDATE, update_payload(state, []))]
    got = write_payloads(PositionWriter(start, RootWithVictim), cases, victim=True)
    assert [root for _, root in got] == [(1, 0, 1, 18, 25), (0, 0, 0, 0, 0), (1, 0, 1, 18, 25)]


def test_position_writer_copies_a_square_and_holds_its_power_up_state():
    dut = PositionWriter({"side": 1, "castle": 5, "ep_valid": 1, "ep_sq": 20})
    got = []

    async def bench(ctx):
        root = ctx.get(dut.root)
        got.append((root.side, root.castle, root.ep_valid, root.ep_sq))
        ctx.set(dut.copy, 1)
        ctx.set(dut.copy_sq, 33)
        ctx.set(dut.copy_code, 0x19)
        await ctx.tick()
        ctx.set(dut.copy, 0)
        got.append((ctx.get(dut.wr_en), ctx.get(dut.wr_sq), ctx.get(dut.wr_code)))
        await ctx.tick()
        got.append(ctx.get(dut.wr_en))  # a pulse

    simulate(dut, bench, 10)
    assert got == [(1, 5, 1, 20), (1, 33, 0x19), 0]

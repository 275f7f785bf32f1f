"""The iCEBreaker's board (hdl.boards.ice40_top: the move generator behind protocol v4, no perft
chip) end to end: ``BoardClient`` talking to its compiled model
(``CompiledBoard(design="icebreaker")``: hdl.link.gen_frontend.GeneratorFrontEnd with a PC's UART on
its lines), held to the reference generator move for move and in order, and cycle for cycle to the
move generator's own compiled model; PING's report of what the board has; the perft commands refused
as UNSUPPORTED and every other error reply, the board usable after each. In Amaranth's simulator:
the typed piece scanner never loads in the clock after a board write (its registers lag the board by
a clock). Also the iCE40 PLL's and the exact UART divisor's arithmetic (Lattice FPGA-TN-02052's
ranges)."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.boards.ice40_pll import (
    OUT_MHZ,
    PFD_MHZ,
    VCO_MHZ,
    exact_divisor,
    ice40_pll_settings,
)
from posdata.hdl.link.gen_frontend import GeneratorFrontEnd
from posdata.hdl.link.protocol import (
    ENGINE_ALL,
    LISTING_HEADER,
    MOVE_BYTES,
    PROTOCOL_VERSION,
    Cmd,
    Err,
    SelfTest,
    command_frame,
    load_payload,
    perft_payload,
    update_payload,
)
from posdata.sim.drivers.fpga_board import BoardClient, BoardRefused
from posdata.sim.drivers.fpga_board_sim import CompiledBoard, SimulatedTransport
from posdata.sim.views.difference import describe_difference
from tests.board_replies import refused
from tests.compiled import compiled_cycles
from tests.hw_positions import EXTRA_STARTS, random_positions


def test_pll_settings_are_exact_and_obey_the_datasheet_ranges():
    for want in (24, 30, 36, 42, 45, 48, 60, 66):
        s = ice40_pll_settings(12, want)
        assert s.output_mhz == want, s
        assert PFD_MHZ[0] <= s.pfd_mhz <= PFD_MHZ[1] and VCO_MHZ[0] <= s.vco_mhz <= VCO_MHZ[1]
        assert OUT_MHZ[0] <= want <= OUT_MHZ[1] and 1 <= s.divq <= 6
    s = ice40_pll_settings(12, 48)
    assert (s.divr, s.divf, s.divq, s.filter_range) == (0, 63, 4, 1)  # icepll -i 12 -o 48
    with pytest.raises(ValueError, match="exactly 47.9 MHz"):
        ice40_pll_settings(12, 47.9)


def test_uart_divisor_must_be_exact():
    assert exact_divisor(48e6, 3_000_000) == 16
    assert exact_divisor(30e6, 3_000_000) == 10
    with pytest.raises(ValueError, match="not a whole multiple of 3000000 baud"):
        exact_divisor(50e6, 3_000_000)
    with pytest.raises(ValueError, match="at least 4"):
        exact_divisor(9e6, 3_000_000)


@pytest.fixture(scope="module")
def client():
    return BoardClient(CompiledBoard(design="icebreaker", verbose=False))



def check_listing(client, board):
    result = client.generate(board)
    expected = board.moves()
    assert result.moves == expected, describe_difference(board.fen(), result.moves, expected,
                                                         "icebreaker", "reference")
    assert result.cycles == compiled_cycles(board), board.fen()


def test_ping_reports_a_generator_without_perft_engines(client):
    info = client.ping()
    assert (info.version, info.engines, info.threads, info.self_test) == (
        PROTOCOL_VERSION, 0, 0, SelfTest.NONE)


def test_power_up_holds_the_initial_position():
    fresh = BoardClient(CompiledBoard(design="icebreaker", verbose=False))
    reply = fresh.command(Cmd.GENERATE)  # no LOAD first
    count = int.from_bytes(reply[4:LISTING_HEADER], "little")
    moves = [int.from_bytes(reply[i:i + MOVE_BYTES], "little")
             for i in range(LISTING_HEADER, len(reply), MOVE_BYTES)]
    assert count == len(moves) and moves == Board().moves()


#: a walk context stalls on a full FIFO four times (hdl.gen.movegen): the registered-head FIFOs'
#: "room" must hold the generator's clocks there too
FULL_FIFO = "4r1R1/5k1r/3P4/8/r7/2p5/5Kp1/3Q4 w - - 0 1"


@pytest.mark.parametrize("fen", [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS)
                         + [FULL_FIFO])
def test_generate_equals_the_reference_in_order(client, fen):
    check_listing(client, Board(fen))


def test_generate_on_random_positions(client):
    for fen in random_positions(60, seed=15):
        check_listing(client, Board(fen))


def test_commands_that_need_the_perft_chip_are_unsupported(client):
    for cmd, payload in ((Cmd.PERFT, perft_payload(3, True, 2)), (Cmd.LEGAL, b""),
                         (Cmd.STATUS, b""), (Cmd.ABORT, b"")):
        assert refused(client, cmd, payload) == Err.UNSUPPORTED, cmd.name
    check_listing(client, Board(STANDARD_POSITIONS[1].fen))  # still usable


def test_error_replies_in_order_and_the_board_unchanged(client):
    board = Board(STANDARD_POSITIONS[2].fen)
    check_listing(client, board)
    state = bytes([board.side | board.castle << 1, 0, 0])
    bad_code = bytes([2] * 63 + [0x1F]) + state  # colour 3 is no colour
    cases = [
        (0x7E, b"", ENGINE_ALL, Err.UNKNOWN_COMMAND),
        (Cmd.PERFT, b"", 5, Err.UNSUPPORTED),       # unsupported before the engine's check
        (Cmd.PING, b"", 1, Err.BAD_ENGINE),
        (Cmd.GENERATE, b"x", 0, Err.BAD_LENGTH),
        (Cmd.UPDATE, state + b"\x00", ENGINE_ALL, Err.BAD_LENGTH),
        (Cmd.LOAD, load_payload(bad_code[:64], bad_code[64:]), ENGINE_ALL, Err.BAD_ARGUMENT),
        (Cmd.UPDATE, update_payload(state, [(64, 2)]), ENGINE_ALL, Err.BAD_ARGUMENT),
        (Cmd.UPDATE, bytes([0x20, 0, 0]), ENGINE_ALL, Err.BAD_ARGUMENT),  # a reserved state bit
        # en passant's victim without an en passant square (the generator ignores the victim;
        # its board checks it all the same)
        (Cmd.UPDATE, bytes([0, 0, 26]), ENGINE_ALL, Err.BAD_ARGUMENT),
    ]
    for cmd, payload, engine, code in cases:
        assert refused(client, cmd, payload, engine) == code, (cmd, payload.hex())
    # nothing was written: the board still lists the position loaded before
    reply = client.command(Cmd.GENERATE)
    moves = [int.from_bytes(reply[i:i + MOVE_BYTES], "little")
             for i in range(LISTING_HEADER, len(reply), MOVE_BYTES)]
    assert moves == board.moves()


def test_bad_crc_is_answered_and_the_link_recovers(client):
    frame = bytearray(command_frame(Cmd.PING))
    frame[-1] ^= 0x55
    client.transport.write(bytes(frame))
    with pytest.raises(BoardRefused) as e:
        client._receive(Cmd.PING)
    assert e.value.code == Err.BAD_CRC
    check_listing(client, Board(STANDARD_POSITIONS[3].fen))  # resyncs and reloads by itself


def test_board_cli_on_the_simulated_icebreaker():
    import json
    import subprocess
    import sys
    run = [sys.executable, "-m", "posdata.sim", "board"]
    out = subprocess.run(run + ["moves", "--target", "cxxrtl", "--board", "icebreaker",
                               "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["match"] and len(result["moves"]) == 20 and result["cycles"] == 65
    out = subprocess.run(run + ["perft", "--target", "cxxrtl", "--board", "icebreaker"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "UNSUPPORTED" in out.stderr and "no perft chip" in out.stderr


def test_no_scanner_load_in_the_clock_after_a_board_write():
    """hdl.gen.prefetch's typed scanner registers what a load takes from the colour planes every
    clock, a clock behind the board: a load (the generator's start while idle) in the clock
    right after a board write (or in the same clock) would take the old board. The front end
    must leave at least two clocks; watched on every clock of a power-up, a LOAD and an UPDATE
    each sent together with a GENERATE (the board holds the GENERATE while it answers), in
    Amaranth's simulator."""
    front_end = GeneratorFrontEnd(4)
    transport = SimulatedTransport(4, front_end=front_end)
    gen = front_end.gen
    gaps = []  # per load: clocks since the last board write

    async def monitor(ctx):
        clock, last_write = 0, None
        async for _, _, wr_en, start, busy in ctx.tick().sample(gen.wr_en, gen.start, gen.busy):
            if start and not busy:
                assert last_write is not None
                gaps.append(clock - last_write)
                assert gaps[-1] >= 2, f"a load {gaps[-1]} clock(s) after a board write"
            if wr_en and not busy:
                last_write = clock
            clock += 1

    transport.sim.add_testbench(monitor, background=True)
    client = BoardClient(transport)
    boards = [Board(), Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")]
    for board in boards:  # the first is a LOAD (nothing known yet), the second an UPDATE
        assert client.generate(board).moves == board.moves()
    assert len(gaps) == 4 and min(gaps) >= 2, gaps  # two passes per listing

"""The front end (hdl.link.chip_frontend) in Amaranth's simulator, UART bits and all, around a small
stand-in for the chip (tests/chip_model.py): what the real chip cannot be made to do in a test
(a move stack overflow, a listing longer than the buffer, a self-test that fails, more than one
engine) and what a listing of the chip's own board shows (LOAD, UPDATE, the power-up position).
The protocol's commands and errors on the real chip: tests/hdl/link/test_board_protocol.py
(compiled).

The stand-in lists the board it holds (a move word per occupied square: from = the square, to =
its code; then the root's Position with bit 20 set), so a listing shows exactly what LOAD,
UPDATE and ABORT left in it. The simulated transport's watchdog ends a read once nothing has
arrived for a bounded number of clocks, so a stuck design fails instead of hanging."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import EMPTY
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.common.contract import position_word, square_code
from posdata.hdl.link.chip_frontend import UartFrontEnd
from posdata.hdl.link.protocol import (
    UART_FRAME_BITS,
    Cmd,
    Err,
    SelfTest,
    State,
    command_frame,
    perft_payload,
    state_bytes,
)
from posdata.sim.drivers.fpga_board import BoardClient, BoardError, BoardRefused, board_state
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
from tests.board_replies import refused
from tests.chip_model import ROOT_FLAG, FakeChip

DIVISOR = 4
TIMEOUT_BYTES = 64


def fake_board(*, engines=1, count_clocks=300, self_test_depth=None, listing_capacity=1024):
    front_end = UartFrontEnd(DIVISOR, chip=FakeChip(engines, count_clocks),
                             self_test_depth=self_test_depth,
                             frame_timeout=TIMEOUT_BYTES * UART_FRAME_BITS * DIVISOR,
                             listing_capacity=listing_capacity)
    return BoardClient(SimulatedTransport(DIVISOR, front_end=front_end))


@pytest.fixture(scope="module")
def client():
    c = fake_board()
    c.ping()
    return c


def shown(board, legal=False):
    """What the stand-in lists for ``board``."""
    words = [sq | square_code(c, p) << 6 for sq, (c, p) in enumerate(zip(board.color, board.piece))
             if c != EMPTY and (not legal or c == 0)]
    return words + [ROOT_FLAG | position_word(board)]



def test_ping_reports_the_chip():
    c = fake_board(engines=3)
    info = c.ping()
    assert (info.version, info.engines, info.threads, info.variant, info.self_test) == (
        4, 3, 2, 0, SelfTest.NONE)


def test_load_update_and_listings_show_the_position(client):
    board = Board(STANDARD_POSITIONS[1].fen)
    result = client.generate(board)  # the first load is a whole one: LOAD
    assert result.moves == shown(board) and result.cycles == 64 and result.writes == 64
    for uci in ("e1g1", "e8c8"):
        before = client.shadow.color[:], client.shadow.piece[:]
        board.push_uci(uci)
        result = client.generate(board)  # UPDATE: the changed squares
        changed = sum((board.color[sq], board.piece[sq]) != (before[0][sq], before[1][sq])
                      for sq in range(64))
        assert result.moves == shown(board) and result.writes == changed
    legal = client.legal_moves(board)
    assert legal.moves == shown(board, legal=True) and legal.cycles == 65


def test_status_follows_a_count_to_its_result(client):
    polls = []
    count = client.perft(Board(), 5, bulk=False, split=3,
                         progress=lambda leaves, clocks: polls.append((leaves, clocks)))
    assert (count.leaves, count.clocks, count.depth, count.bulk, count.split) == (
        300, 300, 5, False, 3)
    assert count.phases == [] and not count.overflow
    s = client.status()
    assert (s.state, s.leaves, s.depth, s.bulk, s.split, s.self_test) == (
        State.DONE, 300, 5, False, 3, False)


def test_an_overflowed_count_is_an_error_not_a_number(client):
    with pytest.raises(BoardError, match=r"perft\(11\) on the simulated board overflowed a move "
                                         r"stack: the chip gives no count for it"):
        client.perft(Board(), 11)
    assert refused(client, Cmd.STATUS) == Err.OVERFLOW
    assert client.perft(Board(), 3).leaves == 300  # the next count clears it


def test_a_listing_too_long_for_the_buffer_is_an_overflow():
    c = fake_board(listing_capacity=8)
    with pytest.raises(BoardRefused, match="refused GENERATE: OVERFLOW"):
        c.generate(Board())  # 32 pieces and the root: 33 words
    board = Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert c.generate(board).moves == shown(board)  # 3 pieces and the root fit


def test_self_test_passes_and_holds_off_the_host():
    # the stand-in counts one leaf a clock: 20 clocks give perft(1)'s 20 leaves
    c = fake_board(count_clocks=20, self_test_depth=1)
    info = c.ping()
    assert info.self_test in (SelfTest.RUNNING, SelfTest.PASSED)
    s = c.status()
    assert s.self_test and (s.depth, s.bulk, s.split) == (1, True, 0)
    assert (s.state, s.leaves) == (State.DONE, 20) and c.ping().self_test == SelfTest.PASSED


def test_self_test_fails_on_a_wrong_count_and_refuses_abort():
    c = fake_board(count_clocks=8_000, self_test_depth=1)
    assert c.ping().self_test == SelfTest.RUNNING
    assert refused(c, Cmd.ABORT) == Err.BUSY  # its result is what the LEDs show
    assert refused(c, Cmd.UPDATE, bytes(3)) == Err.BUSY
    assert refused(c, Cmd.PERFT, perft_payload(1, True, 0)) == Err.BUSY
    while c.status().state == State.RUNNING:
        c.transport.run_cycles(1000)
    assert c.ping().self_test == SelfTest.FAILED
    s = c.status()
    assert (s.state, s.leaves, s.self_test) == (State.DONE, 8_000, True)
    board = Board()
    assert c.generate(board).moves == shown(board)  # the board works on


def test_power_up_position_is_the_initial_one():
    c = fake_board()
    c.ping()
    t = c.transport
    t.write(command_frame(Cmd.GENERATE))
    reply = t.read(4 + 6 + 3 * 33 + 1)
    words = [int.from_bytes(reply[i:i + 3], "little") for i in range(10, len(reply) - 1, 3)]
    assert words == shown(Board())


def test_state_bytes_reach_the_chip(client):
    board = Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    assert client.generate(board).moves[-1] == ROOT_FLAG | position_word(board)
    assert board_state(board) == bytes([0, 0x80 | 43, 35])  # the victim: d5


@pytest.mark.slow
@pytest.mark.parametrize("divisor", [5, 7, 16])
def test_other_divisors(divisor):
    front_end = UartFrontEnd(divisor, chip=FakeChip(count_clocks=50), self_test_depth=None,
                             frame_timeout=TIMEOUT_BYTES * UART_FRAME_BITS * divisor)
    c = BoardClient(SimulatedTransport(divisor, front_end=front_end))
    assert c.ping().version == 4
    board = Board(STANDARD_POSITIONS[5].fen)
    assert c.generate(board).moves == shown(board)
    assert c.perft(board, 2).leaves == 50


def test_a_board_built_for_a_variant():
    """Chigorin's board: PING names the variant, the power-up position is its start, LOAD
    accepts its chancellor (code 7) which an orthodox board refuses."""
    from posdata.engine.rules.variants import VARIANT_NAMES, get_variant
    from posdata.hdl.link.protocol import load_payload
    chigorin = get_variant("chigorin")
    front_end = UartFrontEnd(DIVISOR, chip=FakeChip(1, 300), self_test_depth=None,
                             frame_timeout=TIMEOUT_BYTES * UART_FRAME_BITS * DIVISOR,
                             variant=chigorin)
    c = BoardClient(SimulatedTransport(DIVISOR, front_end=front_end))
    assert c.ping().variant == VARIANT_NAMES.index("chigorin") != 0
    start = Board(chigorin.start_fen, chigorin)
    t = c.transport
    t.write(command_frame(Cmd.GENERATE))
    reply = t.read(4 + 6 + 3 * 33 + 1)
    words = [int.from_bytes(reply[i:i + 3], "little") for i in range(10, len(reply) - 1, 3)]
    assert words == shown(start)
    codes = bytes(square_code(col, p) for col, p in zip(start.color, start.piece))
    assert 7 in {code >> 2 for code in codes}  # the chancellor
    payload = load_payload(codes, state_bytes(start.side, start.castle, 0, 0))
    assert refused(c, Cmd.LOAD, payload) is None
    orthodox = fake_board()
    orthodox.ping()
    assert refused(orthodox, Cmd.LOAD, payload) == Err.BAD_ARGUMENT


@pytest.mark.parametrize("name, fens", [
    ("pawnsideways", ("4k3/8/8/3pP3/8/8/8/4K3 w - d6d5 0 1", "4k3/8/8/8/2pP4/8/8/4K3 b - d3 0 1",
                      "4k3/8/8/8/8/8/8/4K3 w - - 0 1")),
    # Berolina's victim beside the square passed, on either side of it, either side to move
    ("berolina", ("4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", "4k3/8/8/8/2pP4/8/8/4K3 b - c3d4 0 1",
                  "4k3/8/8/3pP3/8/8/8/4K3 w - d5e6 0 1"))])
def test_a_board_with_modes_takes_en_passant_s_victim_as_sent(name, fens):
    """The chip with modes sees the root the host's own rule packs (root_word: the victim from
    the history, here the FEN's pair): the victim comes in the state bytes, not derived from the
    en passant square."""
    from posdata.engine.rules.variants import get_variant
    from posdata.hdl.common.contract import root_word
    variant = get_variant(name)
    front_end = UartFrontEnd(DIVISOR, chip=FakeChip(1, 300, variant=variant),
                             self_test_depth=None,
                             frame_timeout=TIMEOUT_BYTES * UART_FRAME_BITS * DIVISOR,
                             variant=variant)
    c = BoardClient(SimulatedTransport(DIVISOR, front_end=front_end))
    c.ping()
    for fen in fens:
        board = Board(fen, variant)
        want = ROOT_FLAG | root_word(board, modes=True)
        got = c.generate(board).moves[-1]
        assert got == want, f"{fen}: root {got:#x}, want {want:#x}"


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_chess960_board_is_refused_in_one_line():
    from posdata.engine.rules.variants import get_variant
    with pytest.raises(ValueError, match="castling squares"):
        UartFrontEnd(DIVISOR, variant=get_variant("chess960"))

"""The board's protocol end to end on the real chip: ``BoardClient`` talking to the board's
compiled model (``sim.drivers.fpga_board_sim.CompiledBoard``: hdl.link.chip_frontend.UartFrontEnd
around the perft chip, with a PC's UART on its rx and tx lines), held to the reference: GENERATE
move for move and in order (and cycle for cycle against the move generator's compiled model), LEGAL
as a set, perft counts against the published ones; the power-up self-test; STATUS during a count,
ABORT; every error reply, and the board usable after each; resync after a half-sent frame.

A new CompiledBoard starts at power-up (its self-test runs first); the library is built once per
RTL change. Reads end once nothing has happened on the line for a bounded number of clocks, so a
stuck design fails instead of hanging."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.hdl.link.protocol import (
    ENGINE_ALL,
    SELF_TEST_DEPTH,
    Cmd,
    Err,
    SelfTest,
    State,
    command_frame,
    load_payload,
    perft_payload,
    search_payload,
    update_payload,
)
from posdata.sim.drivers.fpga_board import BoardClient, BoardRefused, BoardTimeout
from posdata.sim.drivers.fpga_board_sim import CompiledBoard
from tests.board_replies import refused
from tests.compiled import compiled_cycles
from tests.hw_positions import EXTRA_STARTS, random_positions

#: a game with en passant, castling on both sides and captures
GAME = ("e2e4 g8f6 e4e5 d7d5 e5d6 e7d6 g1f3 f8e7 f1c4 e8g8 e1g1 b8c6 d2d4 c8f5 b1c3 d8d7 "
        "c1f4 a8d8").split()
GAME_CHECKS = ("d7d5", "e5d6", "e8g8", "e1g1", "a8d8")


def fresh_board() -> BoardClient:
    return BoardClient(CompiledBoard(verbose=False))


def wait_for_self_test(client) -> None:
    for _ in range(100):
        if client.status().state != State.RUNNING:
            return
        client.transport.sleep(1e-3)
    raise AssertionError("watchdog: the self-test did not finish in 100,000 clocks x 100")


@pytest.fixture(scope="module")
def client():
    c = fresh_board()
    c.ping()
    wait_for_self_test(c)
    return c



def uci_moves(moves) -> list[str]:
    return sorted(move_uci(m) for m in moves)


# --- Power-up -------------------------------------------------------------------------------

def test_power_up_self_test_holds_off_the_host_then_passes():
    c = fresh_board()
    assert c.ping().self_test == SelfTest.RUNNING
    s = c.status()
    assert (s.state, s.self_test, s.depth, s.bulk, s.split) == (
        State.RUNNING, True, SELF_TEST_DEPTH, True, 2)
    for cmd, payload in [(Cmd.LOAD, load_payload(bytes([2] * 64), bytes(3))),
                         (Cmd.UPDATE, update_payload(bytes(3), [(4, 2)])), (Cmd.GENERATE, b""),
                         (Cmd.LEGAL, b""), (Cmd.PERFT, perft_payload(1, True, 0)),
                         (Cmd.ABORT, b"")]:
        assert refused(c, cmd, payload) == Err.BUSY, cmd.name
    assert c.transport.probe() == (1, SelfTest.RUNNING)
    wait_for_self_test(c)
    s = c.status()
    want = BY_NAME["initial"].counts[SELF_TEST_DEPTH - 1]  # 197,281
    assert (s.state, s.leaves, s.self_test) == (State.DONE, want, True)
    assert c.ping().self_test == SelfTest.PASSED
    assert c.transport.probe() == (0, SelfTest.PASSED)
    # the initial position stays loaded: a listing without a load shows its moves
    reply = c.command(Cmd.GENERATE)
    moves = [int.from_bytes(reply[i:i + 3], "little") for i in range(6, len(reply), 3)]
    assert moves == Board().moves()


# --- Listings -------------------------------------------------------------------------------

@pytest.mark.parametrize("fen", [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS))
def test_generate_equals_the_reference_in_order(client, fen):
    board = Board(fen)
    result = client.generate(board)
    assert result.moves == board.moves(), fen
    assert result.cycles == compiled_cycles(board), fen  # the chip's core is the generator's


def test_generate_and_legal_on_random_positions(client):
    for fen in random_positions(40, seed=7):
        board = Board(fen)
        assert client.generate(board).moves == board.moves(), fen
        legal = client.legal_moves(board)
        assert uci_moves(legal.moves) == uci_moves(board.legal_moves()), fen
        assert legal.cycles > 0


@pytest.mark.parametrize("fen", [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS))
def test_legal_equals_the_reference_set(client, fen):
    board = Board(fen)
    assert uci_moves(client.legal_moves(board).moves) == uci_moves(board.legal_moves()), fen


def test_game_incremental_loads(client):
    """Positions of a game; each load writes only the squares the moves changed."""
    board = Board()
    client.generate(board)  # a load from wherever the previous test left the board
    for uci in GAME:
        board.push_uci(uci)
        if uci in GAME_CHECKS:
            before = client.shadow.color[:], client.shadow.piece[:]
            result = client.generate(board)
            assert result.moves == board.moves(), board.fen()
            changed = sum((board.color[sq], board.piece[sq]) != (before[0][sq], before[1][sq])
                          for sq in range(64))
            assert result.writes == changed < 16
    assert client.generate(board).writes == 0  # the same position again: nothing to write


# --- Counts ---------------------------------------------------------------------------------

#: (position, depth, bulk, split)
COUNTS = [("initial", 0, True, 0), ("initial", 1, True, 0), ("initial", 3, True, 2),
          ("initial", 3, False, 1), ("kiwipete", 2, True, 1), ("kiwipete", 3, True, 0),
          ("kiwipete", 2, False, 0), ("position3", 4, True, 2), ("position4", 3, False, 2),
          ("position5", 3, True, 1), ("position6", 2, False, 1)]


@pytest.mark.parametrize("name, depth, bulk, split", COUNTS)
def test_perft_equals_the_published_count(name, depth, bulk, split):
    """Each count on a board fresh from power-up (after its self-test), so that a count does
    not depend on the one before (that is the next test's subject)."""
    client = fresh_board()
    client.wait_self_test()
    position = BY_NAME[name]
    count = client.perft(Board(position.fen), depth, bulk, split)
    want = position.counts[depth - 1] if depth else 1
    assert (count.leaves, count.depth, count.bulk, count.split) == (want, depth, bulk, split)
    assert count.clocks > 0 and not count.overflow and count.phases == []


def test_counts_in_a_row_each_split_at_the_root(client):
    board = Board(BY_NAME["kiwipete"].fen)
    counts = [client.perft(board, depth, bulk, 0).leaves
              for depth, bulk in ((2, False), (2, True), (3, True), (1, True))]
    assert counts == [2039, 2039, 97862, 48]


def test_counts_in_a_row_with_every_split(client):
    board = Board(BY_NAME["position4"].fen)
    counts = [client.perft(board, depth, bulk, split).leaves
              for depth, bulk, split in ((3, True, 2), (3, False, 1), (2, True, 1), (3, True, 2),
                                         (3, True, 0), (3, False, 2))]
    assert counts == [9467, 9467, 264, 9467, 9467, 9467]


def test_status_shows_progress_during_a_count(client):
    polls = []
    count = client.perft(Board(), 4, progress=lambda leaves, clocks: polls.append(
        (leaves, clocks)))
    assert count.leaves == BY_NAME["initial"].counts[3]
    assert len(polls) >= 5
    assert all(a < b for a, b in zip(polls, polls[1:]))  # leaves and clocks grow
    assert 0 < polls[0][0] and polls[-1][0] < count.leaves and polls[-1][1] < count.clocks
    s = client.status()
    assert (s.state, s.leaves, s.clocks, s.self_test) == (State.DONE, count.leaves, count.clocks,
                                                          False)


def test_abort_mid_count_then_a_good_count(client):
    board = Board(BY_NAME["kiwipete"].fen)
    client.load(board)
    client.command(Cmd.PERFT, perft_payload(4, True, 2))  # 4,085,603 leaves: millions of clocks
    client.transport.sleep(1e-3)
    assert client.status().state == State.RUNNING
    for cmd, payload in [(Cmd.LOAD, load_payload(bytes([2] * 64), bytes(3))),
                         (Cmd.UPDATE, bytes(3)), (Cmd.GENERATE, b""), (Cmd.LEGAL, b""),
                         (Cmd.PERFT, perft_payload(1, True, 0))]:
        assert refused(client, cmd, payload) == Err.BUSY, cmd.name
    client.abort()
    s = client.status()
    assert s.state == State.ABORTED and 0 < s.leaves < 4_085_603
    assert client.status() == s  # as it stood
    # the chip's board is the loaded position again: no load needed
    assert client.generate(board).writes == 0
    assert client.generate(board).moves == board.moves()
    assert client.perft(board, 2).leaves == 2039
    client.abort()  # nothing running: nothing happens
    assert client.status().state == State.DONE


# --- Errors ---------------------------------------------------------------------------------

#: (command, payload, engine, the code it is refused with)
BAD_FRAMES = [
    (0x7E, b"", ENGINE_ALL, Err.UNKNOWN_COMMAND),
    (ord("p"), b"", ENGINE_ALL, Err.UNKNOWN_COMMAND),
    (Cmd.PING, b"", 1, Err.BAD_ENGINE),
    (Cmd.STATUS, b"", 0xFE, Err.BAD_ENGINE),
    (Cmd.GENERATE, b"", 1, Err.BAD_ENGINE),
    (Cmd.PERFT, perft_payload(2, True, 1), 7, Err.BAD_ENGINE),
    (Cmd.PING, b"\x00", ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.LOAD, bytes(66), ENGINE_ALL, Err.BAD_LENGTH),  # version 3's: no victim byte
    (Cmd.UPDATE, bytes(2), ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.UPDATE, bytes(4), ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.UPDATE, bytes(133), ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.PERFT, bytes(2), ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.ABORT, bytes(1), ENGINE_ALL, Err.BAD_LENGTH),
    (Cmd.PERFT, perft_payload(13, True, 2), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.PERFT, perft_payload(15, True, 2), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.PERFT, perft_payload(255, True, 0), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.PERFT, perft_payload(3, True, 3), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.PERFT, perft_payload(1, False, 1), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.PERFT, bytes([3, 2, 0]), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.LOAD, load_payload(bytes([2] * 63 + [3]), bytes(3)), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.LOAD, load_payload(bytes([7 << 2] + [2] * 63), bytes(3)), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.LOAD, load_payload(bytes([2] * 64), b"\x20\x00\x00"), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.LOAD, load_payload(bytes([2] * 64), b"\x00\x40\x00"), ENGINE_ALL, Err.BAD_ARGUMENT),
    # en passant's victim: its reserved bits, a victim without an en passant square
    (Cmd.LOAD, load_payload(bytes([2] * 64), b"\x01\x93\x5a"), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.LOAD, load_payload(bytes([2] * 64), b"\x01\x13\x1a"), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.UPDATE, update_payload(bytes(3), [(64, 2)]), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.UPDATE, update_payload(bytes(3), [(3, 2), (5, 1)]), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.UPDATE, update_payload(b"\x80\x00\x00", []), ENGINE_ALL, Err.BAD_ARGUMENT),
    (Cmd.UPDATE, update_payload(b"\x00\x00\x01", []), ENGINE_ALL, Err.BAD_ARGUMENT),
    # a search board's commands on the perft board
    (Cmd.SEARCH, search_payload(-100, 100, 2, 0), ENGINE_ALL, Err.UNSUPPORTED),
    (Cmd.RESULT, b"", ENGINE_ALL, Err.UNSUPPORTED),
]


@pytest.mark.parametrize("cmd, payload, engine, code", BAD_FRAMES,
                         ids=[f"{i}-{c.name}" for i, (*_, c) in enumerate(BAD_FRAMES)])
def test_a_bad_command_is_refused_and_changes_nothing(client, cmd, payload, engine, code):
    board = Board(BY_NAME["position4"].fen)
    client.generate(board)
    assert refused(client, cmd, payload, engine) == code
    # usable at once (after a resync, for the refusals that say the link garbled a command),
    # and the position is what it was: loading nothing gives its moves
    assert client.ping().version == 4
    client.shadow.diff(board)
    after = client.generate(board)
    assert after.writes == 0 and after.moves == board.moves()
    assert client.status().state != State.RUNNING  # a refused PERFT started nothing


@pytest.mark.parametrize("where", [1, 2, 3, 5, 6, -1])
def test_a_garbled_command_is_refused_bad_crc(client, where):
    """A frame with a flipped bit (cmd, engine, length, payload or CRC) is answered BAD_CRC (a
    longer length: dropped by the time-out instead); the client resyncs and goes on."""
    frame = bytearray(command_frame(Cmd.PERFT, perft_payload(3, True, 1)))
    frame[where] ^= 0x04
    t = client.transport
    t.write(bytes(frame))
    reply = t.read(5)
    if where == 3:  # the length grew: the board waits for bytes that never come
        assert reply == b""
    else:
        assert reply[0] == Err.BAD_CRC and reply[1] == frame[1] and reply[2:4] == b"\0\0"
    client.resync()
    assert client.ping().version == 4
    assert client.status().state != State.RUNNING  # the garbled PERFT did not start a count
    board = Board(BY_NAME["position3"].fen)
    assert client.generate(board).moves == board.moves()


def test_noise_before_sync_is_ignored(client):
    t = client.transport
    t.write(b"\x00\xff\x13\x55\x50" + command_frame(Cmd.PING))
    reply = t.read(13)
    assert reply[:4] == bytes([0, Cmd.PING, 8, 0]) and reply[4:7] == b"POS"
    assert t.read(1) == b""  # one reply, nothing else


def test_resync_after_a_half_sent_frame(client):
    board = Board(BY_NAME["position5"].fen)
    client.generate(board)
    half = command_frame(Cmd.LOAD, load_payload(bytes([2] * 64), bytes(3)))[:30]
    t = client.transport
    t.write(half)
    # a host that goes on at once: its PING is taken as the rest of the LOAD's payload, and the
    # frame is dropped by the board's time-out: no reply
    with pytest.raises(BoardTimeout, match="the PING reply did not arrive"):
        client.command(Cmd.PING)
    # the client resyncs by itself before its next command: a whole load, the moves right
    result = client.generate(board)
    assert result.writes == 64 and result.moves == board.moves()
    # a host that knows it lost step resyncs first; the half LOAD changed nothing
    t.write(half)
    client.resync()
    client.shadow.diff(board)  # what the board holds, if nothing was written
    result = client.generate(board)
    assert result.writes == 0 and result.moves == board.moves()


def test_pipelined_commands_with_a_refusal_in_front(client):
    """generate() sends the load and GENERATE together; a refused load (BUSY) is reported
    and the listing behind it is read and dropped: the client stays in step."""
    board = Board(BY_NAME["position6"].fen)
    client.load(Board())
    client.command(Cmd.PERFT, perft_payload(4, True, 2))
    with pytest.raises(BoardRefused, match="refused (LOAD|UPDATE): BUSY"):
        client.generate(board)
    client.abort()
    assert client.generate(board).moves == board.moves()

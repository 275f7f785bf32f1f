"""The board's command protocol end to end: ``BoardClient`` talking to ``UartFrontEnd`` in
Amaranth's simulator through ``SimulatedTransport`` (UART bits on rx and tx), held to the
reference generator (moves, in order) and to the compiled model's cycle counts (the front end
must not change the generator's timing); the client's error
handling against small fake boards; ``posdata board`` errors.

The simulated transport's watchdog ends a read once nothing has arrived for a bounded number of
clock cycles, so a stuck design fails instead of hanging."""

import json
import os
import select
import subprocess
import sys
import threading
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from posdata.engine.board import Board
from posdata.engine.defs import (A1, A2, A3, B3, BLACK, CAPTURE, E1, E4, EMPTY, H8, KING,
                                 MAX_MOVES, NO_PIECE, NO_SQUARE, PAWN, PAWN_MOVE, WHITE, pack_move)
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.hdl.protocol import (ARGUMENT_FREE_BIT, PING_REPLY, RESYNC, Cmd, end_record,
                                  parse_record, position_args, write_square_args)
from posdata.sim.board_client import BoardClient, BoardTimeout, ProtocolError, SimulatedTransport
from posdata.sim.cli import main

from .compiled import compiled_cycles

DIVISOR = 4  # the smallest: the UART simulation dominates the test time

#: a game with en passant, castling on both sides and captures
GAME = ("e2e4 g8f6 e4e5 d7d5 e5d6 e7d6 g1f3 f8e7 f1c4 e8g8 e1g1 b8c6 d2d4 c8f5 b1c3 d8d7 "
        "c1f4 a8d8").split()


@pytest.fixture(scope="module")
def client():
    """One simulated board for the module: loads are incremental from test to test."""
    c = BoardClient(SimulatedTransport(DIVISOR))
    assert c.ping() == PING_REPLY[-1]
    return c


def check(client, board):
    result = client.generate(board)
    assert result.moves == board.moves(), board.fen()
    assert result.cycles == compiled_cycles(board), board.fen()
    return result


@pytest.mark.parametrize("position", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_standard_positions(client, position):
    check(client, Board(position.fen))


#: where GAME is checked: en passant available, taken, both castlings, the end
GAME_CHECKS = ("d7d5", "e5d6", "e8g8", "e1g1", "a8d8")


def test_game_incremental_loads(client):
    """Positions of a game; each load writes only the squares the moves changed."""
    board = Board()
    check(client, board)  # a load from wherever the previous test left the board
    for uci in GAME:
        board.push_uci(uci)
        if uci in GAME_CHECKS:
            before = client.shadow.color[:], client.shadow.piece[:]
            result = check(client, board)
            changed = sum(1 for sq in range(64) if (board.color[sq], board.piece[sq])
                          != (before[0][sq], before[1][sq]))
            assert result.writes == changed < 16


def test_same_position_twice_writes_nothing(client):
    board = Board(STANDARD_POSITIONS[1].fen)
    check(client, board)
    assert check(client, board).writes == 0


def test_ping_again(client):
    assert client.ping() == PING_REPLY[-1]
    # ping forgets what the board holds (RESYNC may write a square): the next load is full
    board = Board(STANDARD_POSITIONS[2].fen)
    assert check(client, board).writes == 64


#: neighbours of the command letters, lower case, control characters, bit 7 set, the extremes
SOME_UNKNOWN = b"\x00\x01\n\r ?@BDFHOQRTVX_`cgpsw\x7f\x80\xc3\xc7\xd0\xfe\xff"
ALL_UNKNOWN = bytes(b for b in range(256) if b not in set(Cmd))


@pytest.mark.parametrize("unknown", [
    SOME_UNKNOWN, pytest.param(ALL_UNKNOWN, marks=pytest.mark.slow)], ids=["some", "all"])
def test_unknown_command_bytes_are_ignored(client, unknown):
    assert not set(unknown) & set(Cmd)
    t = client.transport
    t.write(unknown + bytes([Cmd.PING.value]))
    assert t.read(len(PING_REPLY) + 1) == PING_REPLY  # one reply, nothing else
    check(client, Board(STANDARD_POSITIONS[0].fen))


def test_resync_completes_a_half_sent_command(client):
    """A WRITE_SQUARE cut short after its square byte: ping's RESYNC completes it (writing a
    square the client then reloads), and the board answers again."""
    t = client.transport
    t.write(bytes([Cmd.WRITE_SQUARE.value, E4]))
    t.run_cycles(30 * DIVISOR)
    t.write(bytes([Cmd.PING.value]))
    t.run_cycles(100 * DIVISOR)
    assert t.in_waiting == 0  # the board took PING as the colour|piece byte
    assert client.ping() == PING_REPLY[-1]
    check(client, Board("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1"))


def test_single_move_stream_is_not_cut_short():
    """One move, found at the very end of the walk, enters the empty FIFO as the generator goes
    idle; the FIFO shows it on its output a cycle later. The end record must wait for it.
    (Any object with color/piece/side/castle/ep is a board to the client: this one has no
    kings, which engine.board would refuse.)"""
    color, piece = [EMPTY] * 64, [NO_PIECE] * 64
    color[A2], piece[A2] = WHITE, PAWN
    for sq in (A3, B3):
        color[sq], piece[sq] = BLACK, PAWN
    board = SimpleNamespace(color=color, piece=piece, side=WHITE, castle=0, ep=NO_SQUARE)
    with BoardClient(SimulatedTransport(DIVISOR)) as c:
        result = c.generate(board)
    assert result.moves == [pack_move(A2, B3, CAPTURE | PAWN_MOVE)]
    assert result.cycles == compiled_cycles(board)


@pytest.mark.parametrize("fifo_depth", [0, 4])
def test_backpressure(fifo_depth):
    """No FIFO, or one that fills up: the generator stalls while the UART sends. Nothing is
    lost, the order holds, and the stalled clocks count."""
    with BoardClient(SimulatedTransport(DIVISOR, fifo_depth=fifo_depth)) as c:
        board = Board(STANDARD_POSITIONS[2].fen)
        result = c.generate(board)
        assert result.moves == board.moves()
        unsent = len(result.moves) - fifo_depth
        assert result.cycles > compiled_cycles(board) + 25 * DIVISOR * unsent


@pytest.mark.slow
@pytest.mark.parametrize("divisor, fifo_depth", [(5, 2), (7, 256), (16, 0)])
def test_other_divisors_and_fifo_depths(divisor, fifo_depth):
    with BoardClient(SimulatedTransport(divisor, fifo_depth=fifo_depth)) as c:
        c.ping()
        for position in STANDARD_POSITIONS:
            board = Board(position.fen)
            result = c.generate(board)
            assert result.moves == board.moves()
            if fifo_depth == 256:
                assert result.cycles == compiled_cycles(board)


# --- The client against fake boards (no simulation) --------------------------------------------

class FakeBoard:
    """A transport whose board answers from a script: ``replies`` maps a command byte to the
    bytes sent back; unscripted commands get nothing (a dead or stuck board). Like the
    simulated board it starts from the power-up state (``just_reset``)."""

    name = "the fake board"
    limit = "no time"
    just_reset = True

    def __init__(self, replies):
        self.replies = replies
        self.pending = bytearray()
        self.sent = bytearray()

    def write(self, data):
        self.sent += data
        for b in data:
            self.pending += self.replies.get(b, b"")

    def read(self, n):
        data, self.pending[:] = bytes(self.pending[:n]), self.pending[n:]
        return data

    def discard_input(self):
        self.pending.clear()

    def close(self):
        pass


def test_fake_dead_board_times_out_naming_the_reply():
    with pytest.raises(BoardTimeout, match="the PING reply did not arrive from the fake board"):
        BoardClient(FakeBoard({})).ping()


def test_fake_wrong_magic_and_wrong_version():
    with pytest.raises(ProtocolError, match="not a posdata board"):
        BoardClient(FakeBoard({Cmd.PING: b"ABCD"})).ping()
    with pytest.raises(ProtocolError, match="protocol version 9.*rebuild the bitstream"):
        BoardClient(FakeBoard({Cmd.PING: PING_REPLY[:3] + b"\x09"})).ping()


def test_fake_short_move_stream():
    move = (E1 | E4 << 6).to_bytes(3, "little")
    board = FakeBoard({Cmd.GENERATE: move + move[:2]})
    client = BoardClient(board)
    with pytest.raises(BoardTimeout, match=r"move record 2 or the end record.* 2 of 3 bytes"):
        client.generate(Board())
    assert client.shadow.color[A1] == -1  # after a failure the next load is a full one


def test_after_an_error_the_client_resyncs():
    fake = FakeBoard({Cmd.PING: PING_REPLY, Cmd.GENERATE: end_record(0)})
    client = BoardClient(fake)
    with pytest.raises(BoardTimeout, match="the READ_CYCLES reply did not arrive"):
        client.generate(Board())
    fake.replies[Cmd.READ_CYCLES] = bytes(4)
    fake.sent.clear()
    assert client.generate(Board()).writes == 64  # after the resync: a full load
    assert fake.sent.startswith(RESYNC + bytes([Cmd.PING.value, Cmd.WRITE_SQUARE.value]))


def test_fake_end_record_count_mismatch():
    move = (E1 | E4 << 6).to_bytes(3, "little")
    client = BoardClient(FakeBoard({Cmd.GENERATE: move + end_record(2)}))
    with pytest.raises(ProtocolError, match="counts 2 moves but 1 arrived"):
        client.generate(Board())


def test_fake_move_stream_up_to_the_buffer_size():
    """A full move buffer is accepted; one move more is refused, not cut short."""
    move = (E1 | E4 << 6).to_bytes(3, "little")
    cycles = {Cmd.READ_CYCLES: bytes(4)}
    full = BoardClient(FakeBoard({Cmd.GENERATE: move * MAX_MOVES + end_record(MAX_MOVES),
                                  **cycles}))
    assert len(full.generate(Board()).moves) == MAX_MOVES
    over = BoardClient(FakeBoard({Cmd.GENERATE: move * (MAX_MOVES + 1)
                                  + end_record(MAX_MOVES + 1), **cycles}))
    with pytest.raises(ProtocolError, match=f"more than {MAX_MOVES} moves in one generation"):
        over.generate(Board())


def test_fake_request_bytes():
    """What the client sends for one generation: the writes, the position, GENERATE and
    READ_CYCLES; and how it reads the replies."""
    board = Board("7k/8/8/8/8/8/8/K7 w - - 0 1")
    fake = FakeBoard({Cmd.GENERATE: end_record(0), Cmd.READ_CYCLES: (1234).to_bytes(4, "little")})
    client = BoardClient(fake)
    result = client.generate(board)
    assert (result.moves, result.cycles, result.writes) == ([], 1234, 2)
    w = Cmd.WRITE_SQUARE.value
    assert fake.sent == (bytes([w]) + write_square_args(A1, WHITE, KING)
                         + bytes([w]) + write_square_args(H8, BLACK, KING)
                         + bytes([Cmd.SET_POSITION.value]) + position_args(0, 0, 0, 0)
                         + bytes([Cmd.GENERATE.value, Cmd.READ_CYCLES.value]))


def test_byte_layouts():
    assert write_square_args(63, 1, 6) == bytes([63, 1 | 6 << 2])
    assert position_args(1, 0b1010, 1, 43) == bytes([1 | 0b1010 << 1, 0x80 | 43])
    assert position_args(0, 15, 0, 0) == bytes([15 << 1, 0])
    assert end_record(300) == bytes([300 & 255, 1, 0x80])
    assert parse_record(end_record(300)) == (True, 300)
    assert parse_record((0x1FFFFF).to_bytes(3, "little")) == (False, 0x1FFFFF)
    assert RESYNC == b"\0\0" and 0 not in set(Cmd)
    # no argument byte can be taken for a command
    args = set(write_square_args(63, 3, 7) + position_args(1, 15, 1, 63))
    assert all(b & ARGUMENT_FREE_BIT for b in Cmd)
    assert not any(b & ARGUMENT_FREE_BIT for b in args | {63, 31, 0xBF})


def test_host_side_imports_no_amaranth():
    code = ("import sys, posdata.sim.cli, posdata.sim.board_client, posdata.hdl.protocol; "
            "assert 'amaranth' not in sys.modules, 'amaranth imported'; "
            "assert 'serial' not in sys.modules, 'pyserial imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- posdata board ------------------------------------------------------------------------------

@contextmanager
def pty_board(simulated: bool = True):
    """A pseudo-terminal whose far end is the simulated board (or nobody): pyserial opens it
    like a USB serial port, a thread carries the bytes to and from the simulation."""
    master, slave = os.openpty()
    stop = threading.Event()
    errors = []

    def bridge():
        try:
            t = SimulatedTransport(DIVISOR)
            while not stop.is_set():
                if select.select([master], [], [], 0)[0]:
                    t.write(os.read(master, 4096))
                t.run_cycles(40 * DIVISOR)
                if t.in_waiting:
                    os.write(master, t.read(t.in_waiting))
        except BaseException as e:  # reported by the test, not lost in the thread
            errors.append(e)

    thread = threading.Thread(target=bridge, daemon=True)
    if simulated:
        thread.start()
    try:
        yield os.ttyname(slave)
    finally:
        stop.set()
        if simulated:
            thread.join(timeout=10)
        os.close(master)
        os.close(slave)
    assert not errors, errors


def test_cli_over_a_serial_port(capsys):
    """The whole host path, pyserial included, against the simulated board behind a pty."""
    with pty_board() as port:
        status = main(["board", "--port", port, "--timeout", "20", "--json",
                       "--fen", STANDARD_POSITIONS[2].fen])
    out, err = capsys.readouterr()
    assert status == 0 and err == "", err
    data = json.loads(out)
    board = Board(STANDARD_POSITIONS[2].fen)
    assert data["match"] is True and data["port"] == port
    assert data["cycles"] == compiled_cycles(board)


def test_cli_silent_serial_port_is_a_one_line_error(capsys):
    with pty_board(simulated=False) as port:
        status = main(["board", "--port", port, "--timeout", "0.2"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert f"the PING reply did not arrive from {port} within 0.2 s" in err


def test_cli_missing_port_is_a_one_line_error(capsys):
    status = main(["board", "--port", "/dev/posdata-no-such-port", "--timeout", "0.1"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("posdata: error: cannot open serial port /dev/posdata-no-such-port")


@pytest.mark.parametrize("argv, word", [
    (["board"], "--port"),
    (["board", "--port", "x", "--sim"], "not allowed"),
    (["board", "--sim", "--baud", "fast"], "--baud"),
    (["board", "--sim", "--timeout", "0"], "--timeout"),
])
def test_cli_bad_arguments(argv, word, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert word in err


def test_cli_sim_json(capsys):
    status = main(["board", "--sim", "--moves", "e2e4", "d7d5", "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    board = Board()
    board.push_uci("e2e4")
    board.push_uci("d7d5")
    assert status == 0 and err == ""
    assert set(data) == {"fen", "moves", "cycles", "match", "port"}
    assert data["match"] is True and data["port"] == "sim" and data["fen"] == board.fen()
    assert data["cycles"] == compiled_cycles(board)
    assert data["moves"][:2] == ["b1a3", "b1c3"] and len(data["moves"]) == len(board.moves())

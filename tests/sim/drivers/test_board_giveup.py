"""When BoardClient.perft gives up on a count (a STATUS reply lost or garbled, the time limit, an
exception in its progress callback), it aborts the count on the board before raising: the board
takes the next command instead of refusing it with BUSY until the count ends. Against the
board's compiled model (sim.drivers.fpga_board_sim), with the failure injected on the line."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME
from posdata.hdl.link.protocol import Cmd, State
from posdata.sim.drivers.fpga_board import BoardClient, BoardTimeout, ProtocolError
from posdata.sim.drivers.fpga_board_sim import CompiledBoard

DEPTH = 4  #: kiwipete's 4,085,603 leaves: millions of clocks, far more than the test runs


class Line:
    """The simulated board's transport, with one STATUS reply lost or garbled on the way back:
    the ``poll``-th one after ``arm()``."""

    def __init__(self, board):
        self.board, self.polls, self.armed, self.fault = board, 0, False, None
        self.name, self.limit = board.name, board.limit
        self.frame_timeout_s, self.poll_interval = board.frame_timeout_s, board.poll_interval
        self.just_reset = True
        self.sleep, self.discard_input, self.close = board.sleep, board.discard_input, board.close

    def arm(self, fault: str, poll: int = 2):
        self.fault, self.at, self.polls, self.armed = fault, poll, 0, True

    def write(self, data: bytes) -> None:
        if self.armed and data[1] == Cmd.STATUS:
            self.polls += 1
        self.board.write(data)

    def read(self, n: int) -> bytes:
        data = self.board.read(n)
        if self.armed and self.polls == self.at:
            self.armed = False
            if self.fault == "lost":
                return b""
            return bytes([data[0] ^ 0x40]) + data[1:]
        return data


@pytest.fixture(scope="module")
def client():
    c = BoardClient(Line(CompiledBoard(verbose=False)))
    c.wait_self_test()
    return c


def interrupt(leaves, clocks):
    if leaves:
        raise KeyboardInterrupt


@pytest.mark.parametrize("fault, error", [("lost", BoardTimeout), ("garbled", ProtocolError),
                                          ("limit", BoardTimeout),
                                          ("progress", KeyboardInterrupt)])
def test_giving_up_on_a_count_aborts_it(client, fault, error):
    board = Board(BY_NAME["kiwipete"].fen)
    options = {"limit": {"limit": 0}, "progress": {"progress": interrupt}}.get(fault, {})
    if fault in ("lost", "garbled"):
        client.transport.arm(fault)
    with pytest.raises(error):
        client.perft(board, DEPTH, **options)
    s = client.status()
    assert (s.state, s.depth) == (State.ABORTED, DEPTH), "the count was left running"
    assert 0 < s.leaves < BY_NAME["kiwipete"].counts[DEPTH - 1]
    assert client.perft(Board(), 2).leaves == 400  # taken, not refused BUSY

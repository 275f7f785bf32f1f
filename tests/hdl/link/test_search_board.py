"""The search board (hdl.link.search_frontend.SearchFrontEnd: the search thread behind the board
protocol) in Amaranth's simulator, driven by BoardClient over a simulated UART: its jobs equal
the reference's (score, best move, nodes), jobs with a game history (repetitions within their
reach), a halfmove counter (fifty-move draws) or check extensions made above them too, jobs
follow loads and updates, RESULT follows a job, ABORT stops one and the next runs as on a fresh
board, bad jobs and the perft chip's commands are refused in one reply, an interrupt aborts the
job under way."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import (
    CHIP_RULES,
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    LeafSearch,
    leaf_search,
)
from posdata.engine.search.searcher import SearchStopped
from posdata.hdl.link.protocol import UART_FRAME_BITS, Cmd, Err, State, search_payload
from posdata.hdl.link.search_frontend import SearchFrontEnd
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
from tests.board_replies import refused

EN_PASSANT = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
PROMOTION = "8/P6k/8/8/8/8/6Kp/8 w - - 0 1"
ENDING = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
KNIGHTS = "7k/8/8/8/8/8/8/N6K w - - 0 1"


@pytest.fixture(scope="module")
def client():
    front_end = SearchFrontEnd(4, frame_timeout=64 * UART_FRAME_BITS * 4)
    c = BoardClient(SimulatedTransport(front_end=front_end, watchdog=200_000))
    c.ping()
    return c



def test_ping_says_a_search_board(client):
    info = client.ping()
    assert (info.version, info.engines, info.threads) == (4, 0, 1)


@pytest.mark.parametrize("fen, alpha, beta, depth, ply", [
    (EN_PASSANT, -50, 50, 1, 0), (PROMOTION, -30001, 30001, 1, 3),
    pytest.param(ENDING, -20, 400, 1, 0, marks=pytest.mark.slow),
    pytest.param(ENDING, 100, 101, 0, 0, marks=pytest.mark.slow)])
def test_jobs_are_the_reference_s(client, fen, alpha, beta, depth, ply):
    got = client.search(Board(fen), alpha, beta, depth, ply)
    want = leaf_search(Board(fen), alpha, beta, depth, ply)
    assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move, want.nodes)
    assert got.clocks > 0
    result = client.result()
    assert (result.state, result.nodes) == (State.DONE, want.nodes)


def played(fen: str, moves: str) -> Board:
    """The board at ``fen`` after ``moves`` (UCI), played as a game: its history."""
    board = Board(fen)
    for m in moves.split():
        board.push_uci(m)
    return board


def without_past(board: Board) -> Board:
    """The same position with no history and the halfmove counter at 0."""
    bare = Board(board.fen().rsplit(" ", 2)[0] + " 0 1")
    assert not bare.hist and bare.fifty == 0
    return bare


PAST_JOBS = {
    # the knight and the king out and back: black's king going back repeats the game's first
    # position (a draw the job finds a ply down); a ply more, and the job's root is that
    # repetition (a draw at once, as it is not the search's root)
    "a repetition a ply down": (played(KNIGHTS, "a1b3 h8g8 b3a1"), (-30001, 30001, 2, 1)),
    "a repetition at the job's root": (played(KNIGHTS, "a1b3 h8g8 b3a1 g8h8"),
                                       (-30001, 30001, 2, 1)),
    # 99 plies without a capture or a pawn's move: every move from the root draws
    "the fifty-move rule": (Board("7k/8/8/8/8/8/8/N6K w - - 99 60"), (-30001, 30001, 2, 1)),
    # black in check at the job's root: extended a ply, unless the line has its extensions
    "the extensions made": (Board("k7/8/1K6/8/8/8/8/R7 b - - 1 1"),
                            (-30001, 30001, 1, 1, MAX_EXTENSIONS)),
}


@pytest.mark.parametrize("case", PAST_JOBS)
def test_a_job_s_past_and_extensions_are_the_reference_s(client, case):
    board, job = PAST_JOBS[case]
    want = LeafSearch(board, rules=CHIP_RULES).run(*job)
    got = client.search(board, *job)
    assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move, want.nodes)
    # the case needs what it carries: without it (no extensions, or no past) the reference's
    # result differs
    if len(job) > 4:
        unlike = LeafSearch(board, rules=CHIP_RULES).run(*job[:4])
    else:
        unlike = LeafSearch(without_past(board), rules=CHIP_RULES).run(*job)
    assert (unlike.score, unlike.best_move, unlike.nodes) != (want.score, want.best_move,
                                                              want.nodes)


@pytest.mark.parametrize("payload, why", [
    (search_payload(50, 50, 1, 0), "empty window"),
    (search_payload(-100, 100, MAX_JOB_DEPTH + 1, 0), "deeper than a job goes"),
    (search_payload(-30002, 100, 1, 0), "alpha below -(MATE + 1)"),
    (search_payload(-100, 100, 1, 128), "ply over 127"),
])
def test_bad_jobs_are_refused(client, payload, why):
    assert refused(client, Cmd.SEARCH, payload) == Err.BAD_ARGUMENT, why
    assert client.result().state != State.RUNNING


@pytest.mark.parametrize("cmd", [Cmd.PERFT, Cmd.STATUS, Cmd.GENERATE, Cmd.LEGAL])
def test_the_perft_chip_s_commands_are_unsupported(client, cmd):
    payload = bytes(3) if cmd == Cmd.PERFT else b""
    assert refused(client, cmd, payload) == Err.UNSUPPORTED


def test_abort_stops_a_job_and_the_next_runs_as_on_a_fresh_board(client):
    board = Board(KIWIPETE)
    client.load(board)
    client.command(Cmd.SEARCH, search_payload(-30001, 30001, 2, 0))
    client.transport.sleep(5e-6)  # 500 clocks into the job
    running = client.result()
    assert running.state == State.RUNNING and 0 < running.clocks
    assert refused(client, Cmd.SEARCH, search_payload(-1, 1, 0, 0)) == Err.BUSY
    # a board write while busy: UPDATE's three state bytes (a LOAD's 67 bytes are seconds of a
    # running thread in this simulator; test_search_threads refuses one on the compiled board)
    assert refused(client, Cmd.UPDATE, bytes(3)) == Err.BUSY
    client.abort()
    assert client.result().state == State.ABORTED
    got = client.search(Board(EN_PASSANT), -50, 50, 1, 0)
    want = leaf_search(Board(EN_PASSANT), -50, 50, 1, 0)
    assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move, want.nodes)


@pytest.mark.slow
def test_an_interrupt_aborts_the_job_under_way(client):
    client.interrupt = lambda: True
    try:
        with pytest.raises(SearchStopped):
            client.search(Board(KIWIPETE), -30001, 30001, 2, 0)
    finally:
        client.interrupt = None
    assert client.result().state == State.ABORTED

"""A search board with two threads (hdl.link.search_frontend.SearchFrontEnd(threads=2)) in
Amaranth's simulator, driven by BoardClient over a simulated UART.

Around a thread model (tests/hdl/link/thread_model.py: a job's numbers say which job, which
load and which past it was): two jobs in flight, each thread's RESULT its own job's, SEARCH
while both run is BUSY (to either thread or to any), ABORT stops one thread's job or every job,
a job to any thread goes to the free one, thread numbers beyond the board's are BAD_ENGINE and
change nothing; SEARCH's extensions, halfmove counter and history reach the thread that takes
the job (each job its own, through search_many too, the fields at their bounds), a field out of
range is BAD_ARGUMENT and a length that is not the job and whole hashes BAD_LENGTH, neither
starting anything. Around two search threads: PING, and BoardClient.search_many's batch over
them (jobs with histories of their own) equal to the reference job by job (two in flight and a
long one aborted: make test-slow)."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import (
    CHIP_RULES,
    HASH_BITS,
    HASH_MASK,
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    MAX_JOB_PLY,
    WINDOW,
    LeafSearch,
)
from posdata.hdl.link.protocol import (
    ENGINE_ALL,
    HASH_BYTES,
    MAX_SEARCH_HISTORY,
    SEARCH_BYTES,
    SEARCH_RX_BYTES,
    UART_FRAME_BITS,
    Cmd,
    Err,
    State,
    command_frame,
    search_payload,
)
from posdata.hdl.link.search_frontend import MAX_FIFTY, SearchFrontEnd
from posdata.sim.drivers.fpga_board import BoardClient, search_job_payload
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
from tests.board_replies import refused

from .thread_model import ThreadModel, digest, model_result, run_clocks

EN_PASSANT = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
PROMOTION = "8/P6k/8/8/8/8/6Kp/8 w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
KNIGHTS = "7k/8/8/8/8/8/8/N6K w - - 0 1"
LONG = MAX_JOB_DEPTH  #: a model job's depth that outlasts every test (millions of clocks)


def board_client(**kwargs) -> BoardClient:
    front_end = SearchFrontEnd(4, frame_timeout=64 * UART_FRAME_BITS * 4, threads=2, **kwargs)
    c = BoardClient(SimulatedTransport(front_end=front_end, watchdog=200_000))
    c.ping()
    return c


@pytest.fixture(scope="module")
def model():
    return board_client(make_thread=ThreadModel)


@pytest.fixture(scope="module")
def real():
    return board_client()



def played(fen, moves="", shuffles=0):
    """A board at ``fen`` after ``moves`` (UCI) and ``shuffles`` times a knight's and a king's
    move out and back (four plies each): a game history the job's repetitions reach into."""
    board = Board(fen)
    for m in moves.split() + ["a1b3", "h8g8", "b3a1", "g8h8"] * shuffles:
        board.push_uci(m)
    return board


def start(client, board, job, thread):
    """Load ``board`` (a FEN: a board without a past) and send SEARCH with its past."""
    board = Board(board) if isinstance(board, str) else board
    client.load(board)
    client.command(Cmd.SEARCH, search_job_payload(board, *job), engine=thread)


def finish(client, thread):
    """Poll ``thread``'s RESULT until its job is over; the last RESULT."""
    for _ in range(1000):
        result = client.result(thread)
        if result.state != State.RUNNING:
            return result
        client.transport.sleep(2e-6)
    raise AssertionError(f"thread {thread}'s job did not finish")


def the_model_s(result, board, job):
    board = Board(board) if isinstance(board, str) else board
    return (result.score, result.best, result.nodes) == model_result(board, *job)


def test_the_board_holds_a_write_of_many_commands(model):
    """Since protocol version 3 a search board holds SEARCH_RX_BYTES received bytes ahead of the
    command in hand. RESULT's reply is longer than RESULT, so a write of many RESULTs piles up
    in the receiver while the replies go out: every one is answered, none dropped. (32 bytes,
    the other boards' buffer, drop most of these: the write is ten times longer.)"""
    job = (-50, 50, 2, 7)
    start(model, EN_PASSANT, job, 1)
    result = finish(model, 1)
    many = 64
    assert many * len(command_frame(Cmd.RESULT, b"", 1)) <= SEARCH_RX_BYTES
    model.transport.write(command_frame(Cmd.RESULT, b"", 1) * many)
    replies = [model._result_reply(model._receive(Cmd.RESULT)) for _ in range(many)]
    assert replies == [result] * many


def test_two_jobs_in_flight_each_result_its_own(model):
    start(model, KIWIPETE, (-500, 500, LONG, 3), 0)
    job = (-50, 50, 2, 7)
    start(model, EN_PASSANT, job, 1)
    assert [model.result(t).state for t in (0, 1)] == [State.RUNNING] * 2
    result = finish(model, 1)
    assert result.state == State.DONE and the_model_s(result, EN_PASSANT, job)
    assert result.clocks == run_clocks(2)
    assert model.result(ENGINE_ALL) == result  # RESULT to any thread: the last job started
    running = model.result(0)
    assert running.state == State.RUNNING and running.clocks > result.clocks
    # the free thread takes the next job while thread 0 still searches
    job = (100, 300, 1, 0)
    start(model, PROMOTION, job, 1)
    result = finish(model, 1)
    assert result.state == State.DONE and the_model_s(result, PROMOTION, job)
    model.abort()  # every job: thread 0's; thread 1's result stays
    stopped = model.result(0)  # its nodes and clocks as they stood
    assert stopped.state == State.ABORTED and stopped.clocks > running.clocks
    assert stopped.nodes == model_result(Board(KIWIPETE), -500, 500, LONG, 3)[2]
    assert model.result(1) == result


def test_a_job_while_both_threads_run_is_busy_and_abort_stops_one(model):
    start(model, KIWIPETE, (-1, 1, LONG, 0), 0)
    start(model, EN_PASSANT, (-2, 2, LONG, 0), ENGINE_ALL)  # the free thread: 1
    # while a job runs its RESULT has the nodes so far: the model's, the pieces it loaded
    assert model.result(ENGINE_ALL).nodes == 4
    assert [(r.state, r.nodes) for r in map(model.result, (0, 1))] == [(State.RUNNING, 32),
                                                                       (State.RUNNING, 4)]
    for thread in (0, 1, ENGINE_ALL):
        assert refused(model, Cmd.SEARCH, search_payload(-1, 1, 0, 0), thread) == Err.BUSY
    assert refused(model, Cmd.LOAD, bytes([2] * 64) + bytes(3)) == Err.BUSY
    model.shadow.forget()  # a refused load changes nothing, but the client's shadow forgot
    model.abort(0)
    assert [model.result(t).state for t in (0, 1)] == [State.ABORTED, State.RUNNING]
    job = (5, 6, 0, 1)
    start(model, PROMOTION, job, ENGINE_ALL)  # the free thread now: 0
    result = finish(model, 0)
    assert result.state == State.DONE and the_model_s(result, PROMOTION, job)
    assert model.result(1).state == State.RUNNING
    model.abort(1)
    assert model.result(1).state == State.ABORTED
    model.abort(1)  # nothing running there: nothing happens
    assert model.result(1).state == State.ABORTED and model.result(0) == result


def test_threads_beyond_the_board_s_are_refused(model):
    start(model, EN_PASSANT, (-3, 3, LONG, 0), 0)
    before = [model.result(t) for t in (0, 1)]
    for cmd, payload, thread in ((Cmd.SEARCH, search_payload(-50, 50, 1, 0), 2),
                                 (Cmd.RESULT, b"", 0xFE), (Cmd.ABORT, b"", 2)):
        assert refused(model, cmd, payload, thread) == Err.BAD_ENGINE, cmd.name
    after = [model.result(t) for t in (0, 1)]
    assert after[0].state == State.RUNNING and after[1] == before[1]
    assert after[0].nodes == before[0].nodes
    model.abort()


def test_each_job_takes_its_own_past(model):
    # histories of 4, 32 (of 40 plies played) and 0 positions; a halfmove counter saturated; one
    # reset by a pawn's move (the history before it is not sent)
    jobs = [(played(KNIGHTS, shuffles=1), (-50, 50, 1, 3, 1), 0),
            (played(KNIGHTS, shuffles=10), (-60, 60, 1, 4, MAX_EXTENSIONS), 1),
            (Board("7k/8/8/8/8/8/8/N6K w - - 150 90"), (-70, 70, 0, 5, 2), ENGINE_ALL),
            (played("7k/6p1/8/8/8/8/8/N6K w - - 0 1", "a1b3 g7g6 b3a1"), (1, 2, 1, 6, 3), 1)]
    assert [len(b.hist) for b, _, _ in jobs] == [4, 40, 0, 3]
    for board, job, thread in jobs:
        start(model, board, job, thread)
        result = finish(model, 0 if thread == ENGINE_ALL else thread)
        assert result.state == State.DONE and the_model_s(result, board, job), job
    # the cases are what they say: the histories' lengths as sent, a counter saturated
    lengths = [model_result(b, *job)[2] >> 7 & 63 for b, job, _ in jobs]
    assert lengths == [4, MAX_SEARCH_HISTORY, 0, 1]
    assert model_result(jobs[2][0], *jobs[2][1])[2] >> 13 & 127 == MAX_FIFTY


def test_a_job_at_every_field_s_bound_is_taken(model):
    # depth 0, so that the job ends and its score shows (the deepest job is LONG's, above)
    hashes = [HASH_MASK - i for i in range(MAX_SEARCH_HISTORY)]
    payload = search_payload(-WINDOW, WINDOW, 0, MAX_JOB_PLY, MAX_EXTENSIONS, MAX_FIFTY, hashes)
    model.load(Board(KNIGHTS))
    model.command(Cmd.SEARCH, payload, engine=0)
    result = finish(model, 0)
    assert result.state == State.DONE
    assert (result.score, result.nodes) == (-WINDOW + MAX_JOB_PLY + MAX_EXTENSIONS,
                                            3 | MAX_SEARCH_HISTORY << 7 | MAX_FIFTY << 13
                                            | digest(hashes) << 20)


#: SEARCH's fields one past their bounds: (payload, what is wrong)
BAD_FIELDS = [
    (search_payload(-1, 1, MAX_JOB_DEPTH + 1, 0), "deeper than a job goes"),
    (search_payload(-1, 1, 1, MAX_JOB_PLY + 1), "ply over the thread's"),
    (search_payload(-1, 1, 1, 0, MAX_EXTENSIONS + 1), "more extensions than a line has"),
    (search_payload(-1, 1, 1, 0, 0, MAX_FIFTY + 1), "halfmove counter not saturated"),
    (search_payload(-1, 1, 1, 0, 0, 1, [5, 5]), "more hashes than the halfmove counter"),
    (search_payload(-1, 1, 1, 0, 0, 3, [5, 1 << HASH_BITS, 5]), "a hash over HASH_BITS"),
    (search_payload(-1, 1, 1, 0, 0, 1, [1 << 8 * HASH_BYTES - 1]), "a hash's top bit"),
    (search_payload(-WINDOW - 1, 1, 1, 0), "alpha below -(MATE + 1)"),
    (search_payload(-1, WINDOW + 1, 1, 0), "beta above MATE + 1"),
    (search_payload(1, 1, 1, 0), "empty window"),
]


@pytest.mark.parametrize("payload, why", BAD_FIELDS, ids=[why for _, why in BAD_FIELDS])
def test_a_field_out_of_range_is_refused(model, payload, why):
    assert refused(model, Cmd.SEARCH, payload, 1) == Err.BAD_ARGUMENT, why
    assert model.result(1).state != State.RUNNING


# (the judge's lengths one by one: tests/hdl/link/test_host_link.py) the old SEARCH's 6
# bytes, a hash cut short, a hash more than the thread keeps
@pytest.mark.parametrize("length", [SEARCH_BYTES - 2, SEARCH_BYTES + 2 * HASH_BYTES - 1,
                                    SEARCH_BYTES + HASH_BYTES * (MAX_SEARCH_HISTORY + 1)])
def test_a_length_that_is_not_the_job_and_whole_hashes_is_refused(model, length):
    payload = search_payload(-1, 1, 1, 0, 0, 100, [7] * MAX_SEARCH_HISTORY) + bytes(HASH_BYTES)
    assert refused(model, Cmd.SEARCH, payload[:length], 1) == Err.BAD_LENGTH
    assert model.result(1).state != State.RUNNING


def test_after_a_refused_job_the_next_carries_its_own_history(model):
    # the refused job's 32 hashes went into the front end's memory; the next job's 4 alone
    # reach its thread
    payload = search_payload(-1, 1, 1, 0, 0, 3, [7] * MAX_SEARCH_HISTORY)
    assert refused(model, Cmd.SEARCH, payload, 0) == Err.BAD_ARGUMENT
    board, job = played(KNIGHTS, shuffles=1), (-5, 5, 0, 0, 0)
    start(model, board, job, 0)
    assert the_model_s(finish(model, 0), board, job)


def test_search_many_gives_each_job_its_history(model):
    jobs = [(played(KNIGHTS, shuffles=n), -10 * n - 1, 10 * n + 1, n % 2, n, n % 3)
            for n in range(4)]
    results = model.search_many(jobs)
    for job, got in zip(jobs, results):
        assert (got.score, got.best_move, got.nodes) == model_result(*job), job[1:]


def test_ping_says_two_threads(real):
    info = real.ping()
    assert (info.engines, info.threads) == (0, 2)
    assert real.threads == 2


def test_a_batch_runs_over_the_threads_in_the_jobs_order(real):
    # one position, two histories, on two threads at once: the first repeats it (its root is
    # a draw: it is not the search's root), the second reaches it from another (no draw)
    jobs = [(played(KNIGHTS, "a1b3 h8g8 b3a1 g8h8"), (-30001, 30001, 1, 1)),
            (played("6k1/8/8/8/8/8/8/N6K b - - 0 1", "g8h8"), (-30001, 30001, 1, 1))]
    results = real.search_many([(board, *job) for board, job in jobs])
    wants = [LeafSearch(board, rules=CHIP_RULES).run(*job) for board, job in jobs]
    for (board, job), got, want in zip(jobs, results, wants):
        assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move,
                                                        want.nodes), (board.fen(), job)
        assert got.clocks > 0
    assert wants[0].nodes == 1 < wants[1].nodes


@pytest.mark.slow
def test_two_search_threads_in_flight_and_an_abort(real):
    start(real, KIWIPETE, (-30001, 30001, 4, 0), 0)
    job = (-50, 50, 1, 0)
    start(real, EN_PASSANT, job, 1)
    assert real.result(0).state == State.RUNNING
    assert refused(real, Cmd.SEARCH, search_payload(-1, 1, 0, 0), 0) == Err.BUSY
    result = finish(real, 1)
    want = LeafSearch(Board(EN_PASSANT), rules=CHIP_RULES).run(*job)
    assert (result.score, result.best, result.nodes) == (want.score, want.best_move, want.nodes)
    assert real.result(0).state == State.RUNNING
    real.abort()
    assert real.result(0).state == State.ABORTED
    again = real.search_many([(Board(EN_PASSANT), *job)] * 2)
    assert [(r.score, r.nodes) for r in again] == [(want.score, want.nodes)] * 2

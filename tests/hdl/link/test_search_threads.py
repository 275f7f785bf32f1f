"""A search board with two threads (hdl.link.search_frontend.SearchFrontEnd(threads=2)) in
Amaranth's simulator, driven by BoardClient over a simulated UART.

Around a thread model (tests/hdl/link/thread_model.py: a job's numbers say which job and which
load it was): two jobs in flight, each thread's RESULT its own job's, SEARCH while both run is
BUSY (to either thread or to any), ABORT stops one thread's job or every job, a job to any
thread goes to the free one, thread numbers beyond the board's are BAD_ENGINE and change
nothing. Around two search threads: PING, and BoardClient.search_many's batch over them equal
to the reference job by job (two in flight and a long one aborted: make test-slow)."""

import pytest

from posdata.engine.board import Board
from posdata.engine.leaf_search import leaf_search
from posdata.hdl.link.protocol import ENGINE_ALL, UART_FRAME_BITS, Cmd, Err, State, search_payload
from posdata.hdl.link.search_frontend import SearchFrontEnd
from posdata.sim.drivers.fpga_board import BoardClient, BoardRefused
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport

from .thread_model import ThreadModel, model_result, run_clocks

EN_PASSANT = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
PROMOTION = "8/P6k/8/8/8/8/6Kp/8 w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
LONG = 8  #: a model job's depth that outlasts every test (millions of clocks)


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


def refused(client, cmd, payload=b"", engine=ENGINE_ALL):
    try:
        client.command(cmd, payload, engine)
    except BoardRefused as e:
        return e.code
    return None


def start(client, fen, job, thread):
    client.load(Board(fen))
    client.command(Cmd.SEARCH, search_payload(*job), engine=thread)


def finish(client, thread):
    """Poll ``thread``'s RESULT until its job is over; the last RESULT."""
    for _ in range(1000):
        result = client.result(thread)
        if result.state != State.RUNNING:
            return result
        client.transport.sleep(2e-6)
    raise AssertionError(f"thread {thread}'s job did not finish")


def the_model_s(result, fen, job):
    return (result.score, result.best, result.nodes) == model_result(Board(fen), *job)


def test_two_jobs_in_flight_each_result_its_own(model):
    start(model, KIWIPETE, (-500, 500, LONG, 3), 0)
    job = (-50, 50, 3, 7)
    start(model, EN_PASSANT, job, 1)
    assert [model.result(t).state for t in (0, 1)] == [State.RUNNING] * 2
    result = finish(model, 1)
    assert result.state == State.DONE and the_model_s(result, EN_PASSANT, job)
    assert result.clocks == run_clocks(3)
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
    assert stopped.nodes == model_result(Board(KIWIPETE), -500, 500, 8, 3)[2]
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
    assert refused(model, Cmd.LOAD, bytes([2] * 64) + bytes(2)) == Err.BUSY
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


def test_ping_says_two_threads(real):
    info = real.ping()
    assert (info.engines, info.threads) == (0, 2)
    assert real.threads == 2


def test_a_batch_runs_over_the_threads_in_the_jobs_order(real):
    jobs = [(EN_PASSANT, (-50, 50, 1, 0)), (PROMOTION, (-30001, 30001, 0, 3))]
    results = real.search_many([(Board(fen), *job) for fen, job in jobs])
    for (fen, job), got in zip(jobs, results):
        want = leaf_search(Board(fen), *job)
        assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move,
                                                        want.nodes), (fen, job)
        assert got.clocks > 0


@pytest.mark.slow
def test_two_search_threads_in_flight_and_an_abort(real):
    start(real, KIWIPETE, (-30001, 30001, 4, 0), 0)
    job = (-50, 50, 1, 0)
    start(real, EN_PASSANT, job, 1)
    assert real.result(0).state == State.RUNNING
    assert refused(real, Cmd.SEARCH, search_payload(-1, 1, 0, 0), 0) == Err.BUSY
    result = finish(real, 1)
    want = leaf_search(Board(EN_PASSANT), *job)
    assert (result.score, result.best, result.nodes) == (want.score, want.best_move, want.nodes)
    assert real.result(0).state == State.RUNNING
    real.abort()
    assert real.result(0).state == State.ABORTED
    again = real.search_many([(Board(EN_PASSANT), *job)] * 2)
    assert [(r.score, r.nodes) for r in again] == [(want.score, want.nodes)] * 2

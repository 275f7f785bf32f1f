"""BoardClient.search_many against a search board modelled in Python (several threads, a job
finishing after some RESULT polls): the jobs go to free threads by the engine byte, a thread
takes the next job once its result is read, the results come back in the jobs' order; a job's
SEARCH carries its extensions, its board's halfmove counter (saturated) and the hashes of its
earlier positions; an interrupt or a time limit aborts every job; a job the board drops
(ABORTED) or refuses is a one-line ProtocolError, and so is SEARCH refused for its length (a
bitstream older than the job's history); a job's LOAD or UPDATE and SEARCH go out in one
write."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import HASH_MASK, REPETITION_PLIES
from posdata.engine.search.searcher import SearchStopped
from posdata.hdl.link.protocol import (
    ENGINE_ALL,
    FLAG_BEST,
    FLAG_REFUSED,
    HASH_BYTES,
    SEARCH_BYTES,
    Cmd,
    Err,
    SelfTest,
    State,
    ping_payload,
    reply_frame,
    result_payload,
)
from posdata.sim.drivers.fpga_board import BoardClient, BoardRefused, BoardTimeout, ProtocolError


class SearchBoard:
    """A transport whose board has ``threads`` search threads; a job's RESULT says RUNNING for
    ``polls(job)`` polls, then DONE with score alpha + ply, best move depth, nodes the job's
    number. ``drop`` (a job number): that job is ABORTED instead; ``refuse``: its flags say
    refused."""

    name = "the fake search board"
    limit = "no time"
    just_reset = True
    frame_timeout_s = 0.25
    poll_interval = 0.5

    def __init__(self, threads, polls=lambda job: 2, drop=None, refuse=None, bad_load=False,
                 old=False):
        self.threads = threads
        self.bad_load = bad_load          # LOAD and UPDATE answered BAD_ARGUMENT
        self.old = old                    # SEARCH takes the 6 bytes it had: else BAD_LENGTH
        self.searches = []                # SEARCH's fields: (ext, fifty, hashes) each
        self.writes = []                  # the commands of each write
        self.polls, self.drop, self.refuse = polls, drop, refuse
        self.jobs = [None] * threads     # per thread: [job number, alpha, beta, depth, ply]
        self.left = [0] * threads
        self.state = [State.IDLE] * threads
        self.last = 0
        self.started = []                 # (thread, job number), in order
        self.aborts = []                  # ABORT's engine bytes
        self.pending = bytearray()

    def write(self, data):
        data = bytes(data)
        self.writes.append([])
        while data:
            length = data[3]
            frame, data = data[:5 + length], data[5 + length:]
            self.writes[-1].append(Cmd(frame[1]))
            self.pending += self.answer(Cmd(frame[1]), frame[2], frame[4:-1])

    def answer(self, cmd, engine, payload):
        if cmd == Cmd.PING:
            return reply_frame(Err.OK, cmd, ping_payload(0, self.threads, SelfTest.NONE))
        if cmd in (Cmd.LOAD, Cmd.UPDATE):
            return reply_frame(Err.BAD_ARGUMENT if self.bad_load else Err.OK, cmd)
        if cmd == Cmd.SEARCH:
            if self.old and len(payload) != 6:
                return reply_frame(Err.BAD_LENGTH, cmd)
            self.searches.append((payload[6], payload[7], [
                int.from_bytes(payload[i:i + HASH_BYTES], "little")
                for i in range(SEARCH_BYTES, len(payload), HASH_BYTES)]))
            free = [t for t in range(self.threads) if self.state[t] != State.RUNNING]
            thread = free[0] if engine == ENGINE_ALL and free else engine
            if thread not in free:
                return reply_frame(Err.BUSY, cmd)
            alpha, beta = (int.from_bytes(payload[i:i + 2], "little", signed=True)
                           for i in (0, 2))
            number = len(self.started)
            self.jobs[thread] = [number, alpha, beta, payload[4], payload[5]]
            self.left[thread] = self.polls(number)
            self.state[thread] = State.RUNNING
            self.started.append((thread, number))
            self.last = thread
            return reply_frame(Err.OK, cmd)
        if cmd == Cmd.RESULT:
            thread = self.last if engine == ENGINE_ALL else engine
            number, alpha, _, depth, ply = self.jobs[thread]
            if self.state[thread] == State.RUNNING:
                self.left[thread] -= 1
                if self.left[thread] <= 0:
                    self.state[thread] = State.ABORTED if number == self.drop else State.DONE
            flags = FLAG_BEST | (FLAG_REFUSED if number == self.refuse else 0)
            return reply_frame(Err.OK, cmd, result_payload(self.state[thread], flags,
                                                           alpha + ply, depth, number, 10))
        if cmd == Cmd.ABORT:
            self.aborts.append(engine)
            for t in range(self.threads):
                if self.state[t] == State.RUNNING and engine in (t, ENGINE_ALL):
                    self.state[t] = State.ABORTED
            return reply_frame(Err.OK, cmd)
        return reply_frame(Err.UNSUPPORTED, cmd)

    def read(self, n):
        data, self.pending[:] = bytes(self.pending[:n]), self.pending[n:]
        return data

    def discard_input(self):
        self.pending.clear()

    def sleep(self, seconds):
        pass

    def close(self):
        pass


FENS = ["4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "8/P6k/8/8/8/8/6Kp/8 w - - 0 1",
        "7k/8/6QK/8/8/8/8/8 w - - 0 1", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]


def jobs(n):
    return [(Board(FENS[i % len(FENS)]), -100 - i, 100 + i, i % 3, i, i % 2) for i in range(n)]


def test_jobs_go_to_free_threads_and_come_back_in_order():
    # job 0 takes long, so thread 1 runs jobs 1, 2 and 3 while thread 0 searches
    fake = SearchBoard(2, polls=lambda job: 8 if job == 0 else 1)
    client = BoardClient(fake)
    results = client.search_many(jobs(5))
    assert [(r.score, r.best_move, r.nodes) for r in results] == [
        (-100 - i + i, i % 3, i) for i in range(5)]
    assert fake.started[:2] == [(0, 0), (1, 1)]
    assert [t for t, _ in fake.started[2:4]] == [1, 1]
    assert all(s != State.RUNNING for s in fake.state) and not fake.aborts


def test_a_round_is_two_writes_and_a_refused_load_stops_its_job():
    # the free threads' jobs in one write, a LOAD or UPDATE and a SEARCH each; then the
    # running threads' RESULTs in one write, again until one finishes
    fake = SearchBoard(2, polls=lambda job: 1 if job == 1 else 3)
    BoardClient(fake).search_many(jobs(3))
    load, update = Cmd.LOAD, Cmd.UPDATE  # the first job's board is new, then the squares
    assert fake.writes == [[Cmd.PING],
                           [load, Cmd.SEARCH, update, Cmd.SEARCH],
                           [Cmd.RESULT, Cmd.RESULT],  # job 1 is done, job 0 runs
                           [update, Cmd.SEARCH],  # job 2 on thread 1
                           [Cmd.RESULT, Cmd.RESULT],
                           [Cmd.RESULT, Cmd.RESULT],  # job 0 is done
                           [Cmd.RESULT]]  # job 2 is done
    fake = SearchBoard(2, bad_load=True)
    with pytest.raises(BoardRefused, match="BAD_ARGUMENT"):
        BoardClient(fake).search_many(jobs(2))
    assert fake.aborts[0] == 0 and State.RUNNING not in fake.state


def test_search_carries_the_extensions_and_the_board_s_past():
    shuffled = Board("7k/8/8/8/8/8/8/N6K w - - 0 1")  # out and back 11 times: 44 plies
    for m in ["a1b3", "h8g8", "b3a1", "g8h8"] * 11:
        shuffled.push_uci(m)
    late = Board("7k/8/6QK/8/8/8/8/8 w - - 150 90")  # a counter past what the byte holds
    fake = SearchBoard(2)
    BoardClient(fake).search_many([(shuffled, -1, 1, 1, 0, 3), (late, -1, 1, 1, 0, 0),
                                   (Board(FENS[0]), -1, 1, 1, 0, 1)])
    kept = [entry[5] & HASH_MASK for entry in shuffled.hist[-REPETITION_PLIES:]]
    assert fake.searches == [(3, 44, kept), (0, 127, []), (1, 0, [])]
    assert kept[0] == kept[4] != kept[2]  # the same position every four plies


def test_a_board_that_takes_the_old_search_is_one_line():
    fake = SearchBoard(1, old=True)
    with pytest.raises(ProtocolError, match="older than the job's history") as e:
        BoardClient(fake).search_many(jobs(1))
    assert "\n" not in str(e.value)


def test_one_thread_runs_the_jobs_one_after_another():
    fake = SearchBoard(1)
    results = BoardClient(fake).search_many(jobs(3))
    assert [r.nodes for r in results] == [0, 1, 2]
    assert [t for t, _ in fake.started] == [0, 0, 0]


def test_an_interrupt_aborts_every_job():
    fake = SearchBoard(2, polls=lambda job: 100)
    client = BoardClient(fake)
    polls = iter(range(100))
    client.interrupt = lambda: next(polls) == 3
    with pytest.raises(SearchStopped):
        client.search_many(jobs(3))
    assert fake.aborts and fake.aborts[0] == ENGINE_ALL
    assert State.RUNNING not in fake.state


def test_a_time_limit_aborts_every_job():
    fake = SearchBoard(2, polls=lambda job: 10**9)
    with pytest.raises(BoardTimeout, match="within 0 s"):
        BoardClient(fake).search_many(jobs(2), limit=0)
    assert fake.aborts == [ENGINE_ALL] * len(fake.aborts) and State.RUNNING not in fake.state


@pytest.mark.parametrize("trouble, said", [({"drop": 1}, "with state ABORTED"),
                                           ({"refuse": 2}, "refused a job")])
def test_a_dropped_or_refused_job_is_one_line(trouble, said):
    fake = SearchBoard(2, **trouble)
    with pytest.raises(ProtocolError, match=said) as e:
        BoardClient(fake).search_many(jobs(4))
    assert "\n" not in str(e.value)
    assert State.RUNNING not in fake.state  # the others aborted

"""`make bench-search-threads` (issue 39, item 3): the projection's link counts the bytes the
client writes (the same frames, against the same board position), a round's time by hand, and
the host's search over the recorder and its replay equal to the serial search."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.host_parallel import ParallelHostSearch
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.sim.drivers.fpga_board import BoardClient
from tests.scripts import BENCH, load_script
from tests.sim.drivers.test_board_search_many import SearchBoard, jobs


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # a bench imports its neighbours by bare name
    return load_script(BENCH / "search_threads.py")


class Leaf(ReferenceLeaf):
    """The reference with a clock count (its nodes times 10) and the load the model counts."""

    load_clocks = 0

    def search(self, *job):
        result = super().search(*job)
        result.clocks = 10 * result.nodes
        self.load_clocks += 64
        return result


def test_the_rounds_bytes_are_the_client_s(bench):
    # the same jobs through the client (a fake board counting the bytes of each write) and
    # through the recorder, one round: the start's bytes agree job by job
    board = SearchBoard(3)
    written = []
    write = board.write
    board.write = lambda data: (written.append(len(data)), write(data))
    batch = jobs(3)
    BoardClient(board).search_many(batch)
    recorder = bench.Recorder([Leaf(), Leaf(), Leaf()])
    recorder.search_many(batch)
    assert sum(recorder.rounds[0].start_bytes) == written[1]  # after PING's
    assert recorder.rounds[0].clocks == [10 * r.nodes + 64 for r in recorder.results[0]]


def test_a_round_s_time_by_hand(bench):
    r = bench.Round()
    r.start_bytes, r.clocks = [100, 60], [3_000, 9_000]  # the slowest: 0.3 ms at 30 MHz
    link, chip, v2 = bench.link_and_chip([r], 30.0, 1_000_000, 0.001)
    start = 0.001 + (160 + 20) * 10 / 1e6            # both jobs' frames, four empty replies
    poll = 0.001 + (2 * 5 + 2 * 28) * 10 / 1e6       # two RESULTs and their replies
    assert chip == pytest.approx(3e-4)
    assert link == pytest.approx(start + poll - 3e-4)  # one poll finds it done
    starts = 2 * 0.001 + (160 + 20) * 10 / 1e6       # an exchange a job
    sweep = 2 * (0.001 + 33 * 10 / 1e6)              # a RESULT exchange a thread
    assert v2 == pytest.approx(starts + sweep - 3e-4)
    r.clocks = [3_000, 900_000]                      # 30 ms
    link, chip, v2 = bench.link_and_chip([r], 30.0, 1_000_000, 0.001)
    # three sweeps of 2.66 ms and two pauses of 20 ms: 47.98 ms; two reach 25.32 ms only
    assert v2 == pytest.approx(starts + 3 * sweep + 2 * 0.02 - 0.03)
    assert link == pytest.approx(start + 19 * poll - 0.03)  # 19 polls of 1.66 ms: 31.54 ms


def test_the_replay_is_the_recorded_search(bench):
    fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
    serial = HostSearch(Board(fen), ReferenceLeaf(), 1).search(3)
    recorder = bench.Recorder([Leaf(), Leaf()])
    got = ParallelHostSearch(Board(fen), recorder, 1).search(3)
    again = ParallelHostSearch(Board(fen), bench.Replay(recorder), 1).search(3)
    assert (got.score, got.best_move, got.pv) == (serial.score, serial.best_move, serial.pv)
    assert (again.score, again.pv, again.nodes) == (got.score, got.pv, got.nodes)
    assert len(recorder.rounds) > 1 and any(len(r.clocks) == 2 for r in recorder.rounds)

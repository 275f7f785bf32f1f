"""`make bench-search-pipeline` (issue 39): the event model of docs/chip_search.md, "Clocks per
node". Hand-made segments costed with today's rules and with the pipelined latencies against
counts by hand, the recording over a small tree, the 25 % check."""

import subprocess
import sys

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from tests.scripts import BENCH, REPO, load_script


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # a bench imports its neighbours by bare name
    return load_script(BENCH / "search_pipeline.py")


def cand(bench, src, outcome, depth=0, query=False, castle=False, forced=False):
    return bench.Cand(query, castle, src, outcome, depth, forced)


def test_today_s_rules_by_hand(bench):
    # a quiescence node's entry (stream from Enter + 1; the in-check answer at Enter + 6):
    # a victim, its aggressor settled, a victim, its aggressor (a query) made
    seg = bench.Segment(bench.ENTRY, 1, (
        bench.VICTIM,
        cand(bench, bench.STAGE1, bench.SETTLED),
        bench.VICTIM,
        cand(bench, bench.STAGE1, bench.MADE, query=True),
    ), bench.ENDS_MADE)
    # clock 1 Next (victim), 2 Next (candidate), 3-5 Test waits for the answer, 6 Test,
    # 7 Judge (the child's evaluation in at 2 + 4 = 6), 8 Next (victim), 9 Next (candidate),
    # 10 Test (the query), 11-15 Judge (its answer at 10 + 5): made
    assert bench.today_clocks(seg) == (4, 5, 6)
    # after a Return: no wait; castling's three Tests, its answer 5 after the last; then the
    # stack runs out: a Next clock more
    seg = bench.Segment(bench.RETURN, 0, (
        cand(bench, bench.STACK, bench.SETTLED),
        cand(bench, bench.STACK, bench.MADE, castle=True, query=True, forced=True),
    ), bench.ENDS_STAGE2)
    # 0 Next, 1 Test, 2-4 Judge (evaluation at 0 + 4), 5 Next, 6-8 Test, 9-13 Judge (8 + 5),
    # 14 Next (the stack is empty)
    assert bench.today_clocks(seg) == (3, 4, 8)
    # a node whose stage 1 runs out after two victims with no aggressor: three Next clocks
    seg = bench.Segment(bench.RETURN, 0, (bench.VICTIM, bench.VICTIM), bench.ENDS_STAGE1)
    assert bench.today_clocks(seg) == (3, 0, 0)


def test_pipelined_latencies_by_hand(bench):
    lat = bench.Latencies()
    assert (lat.scan, lat.rescan, lat.aggressor, lat.decide, lat.query, lat.promo,
            lat.stack) == (5, 3, 5, 7, 5, 1, 2)  # docs/chip_search.md, "Clocks per node"
    # an entry: a victim nobody attacks (dropped by the attack map), a victim, two aggressors
    # of it: the first registered at Enter + 9, decided at T + 7 = Enter + 17 ("a node's first
    # capture is decided at Enter + 17 at the soonest"), the second a clock behind it, made
    seg = bench.Segment(bench.ENTRY, 1, (
        bench.VICTIM, bench.VICTIM,
        cand(bench, bench.STAGE1, bench.SETTLED),
        cand(bench, bench.STAGE1, bench.MADE),
    ), bench.ENDS_MADE)
    assert bench.pipelined_clocks(seg, lat) == 18 - 1 + 1  # clocks 1 .. 18
    # without the attack map both victims cost a clock: the aggressors a clock later
    assert bench.pipelined_clocks(seg, bench.Latencies(attack_map=False)) == 19
    # one at a time: the second candidate enters after the first is decided (17): 18, T 19,
    # decided 26
    assert bench.pipelined_clocks(seg, bench.Latencies(streaming=False)) == 26
    # after a Return (its clock 0 is Return + 1), the same victim's next aggressor: V1-V3 and
    # A1-A5 from the record, registered at 3 + 5 - 1 = 7 (Return + 8), T = 8; a full-width
    # child made whatever its evaluation, the pin test settling it: T + 1
    seg = bench.Segment(bench.RETURN, 0, (cand(bench, bench.STAGE1, bench.MADE, depth=1),),
                        bench.ENDS_MADE)
    assert bench.pipelined_clocks(seg, lat) == 10  # clocks 0 .. 9
    # ... with a query: T + 5; a quiescence child that may give check: T + max(1, 7 - 3)
    seg = bench.Segment(bench.RETURN, 0, (cand(bench, bench.STAGE1, bench.MADE, depth=1,
                                               query=True),), bench.ENDS_MADE)
    assert bench.pipelined_clocks(seg, lat) == 14  # decided at 8 + 5
    seg = bench.Segment(bench.RETURN, 0, (cand(bench, bench.STAGE1, bench.MADE, forced=True),),
                        bench.ENDS_MADE)
    assert bench.pipelined_clocks(seg, lat) == 13  # decided at 8 + 4
    # the walk's end: the stack's first candidate at 2 (the stack read, P), T = 3, a quiescence
    # child settled by its evaluation at T + 7 = 10; castling at 3, its three queries in T at
    # 4, 5, 6, illegal by the first's answer at 4 + 5 = 9, committed in order at 11; the next at
    # 4 waits for T until 7, illegal by its query at 12; the stack runs out the clock after:
    # clocks 0 .. 13
    seg = bench.Segment(bench.WALK, 0, (
        cand(bench, bench.STACK, bench.SETTLED),
        cand(bench, bench.STACK, bench.ILLEGAL, castle=True, query=True, forced=True),
        cand(bench, bench.STACK, bench.ILLEGAL, query=True),
    ), bench.ENDS_STAGE2)
    assert bench.pipelined_clocks(seg, lat) == 14
    # stage 1 runs out after three victims nobody attacks, the node entered at Enter + 1:
    # the scan's end, 5 + 0 + 3 (dropped by the attack map) = Enter + 8: clocks 1 .. 8
    seg = bench.Segment(bench.ENTRY, 1, (bench.VICTIM,) * 3, bench.ENDS_STAGE1)
    assert bench.pipelined_clocks(seg, lat) == 8
    assert bench.pipelined_clocks(seg, bench.Latencies(attack_map=False)) == 11


def test_the_recording_over_a_small_tree(bench):
    # kiwipete (captures, castling, pins) at host depth 2, chip depth 1: the recording leaf
    # searches what the reference does, and its segments add up
    fen = dict(bench.POSITIONS)["kiwipete"]
    leaf = bench.record([("kiwipete", fen)], 2, 1)
    ref_leaf = ReferenceLeaf()
    ref = HostSearch(Board(fen), ref_leaf, 1).search(2)
    assert leaf.nodes == ref.leaf_nodes and leaf.jobs == ref.jobs
    assert leaf.stats == ref_leaf.stats
    segs = leaf.segments
    assert sum(s.end == bench.ENDS_MADE for s in segs) == leaf.made > 0
    assert all(s.items[-1].outcome == bench.MADE for s in segs if s.end == bench.ENDS_MADE)
    assert all(it is bench.VICTIM or it.outcome != bench.MADE
               for s in segs for it in s.items[:-1])
    # a segment starts at a return exactly after a made child, at most one entry a node
    kinds = {bench.kind_of(s) for s in segs}
    assert {k[0] for k in kinds} == {bench.ENTRY, bench.RETURN, bench.WALK}
    assert sum(s.start == bench.ENTRY for s in segs) <= leaf.nodes
    assert sum(s.start == bench.WALK for s in segs) <= leaf.stats.walks
    today = [sum(c) for c in zip(*map(bench.today_clocks, segs))]
    assert all(c > 0 for c in today)
    table = bench.segment_table(segs, leaf.nodes, bench.Latencies())
    assert sum(r["count"] for r in table) == len(segs)
    assert sum(r["today_per_node"] for r in table) == pytest.approx(sum(today) / leaf.nodes)
    assert sum(r["pipelined_per_node"] for r in table) == pytest.approx(
        bench.stream_per_node(segs, leaf.nodes))


def test_the_estimate_within_25_percent(bench):
    # the measurement within 25 % of the estimate (search_chip.py's "(+26%)")
    assert bench.check_estimate(20.0, 24.9) and bench.check_estimate(20.0, 15.1)
    assert not bench.check_estimate(20.0, 25.1)
    assert not bench.check_estimate(20.0, 14.9)


def test_the_kept_states(bench):
    line = "clocks per node by state: Judge 5.45, Next 4.91, Collect 1.75, Idle 0.00"
    assert bench.parse_states(line) == {"Judge": 5.45, "Next": 4.91, "Collect": 1.75,
                                        "Idle": 0.0}
    run = {"results": {"rows": [{"chip_nodes": 30}, {"chip_nodes": 70}],
                       "clocks_by_state": {"Next": 491, "Make": 103},
                       "clocks_per_node": 19.0, "with_load": 19.25}}
    assert bench.states_of_run(run) == {"Next": 4.91, "Make": 1.03}
    assert bench.load_per_node(run) == pytest.approx(0.25)
    assert bench.states_of_run({"results": {"rows": []}}) is None


def test_no_amaranth():
    # the bench is pure Python: the reference search, no gateware
    code = ("import sys; sys.path.insert(0, 'bench'); import search_pipeline; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'amaranth'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"

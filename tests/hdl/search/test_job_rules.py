"""One statement of a search job's rules (issue 42): the gateware's refusal
(hdl.search.records.job_refused, as the front end applies it to SEARCH's bytes) refuses exactly the
jobs engine.search.leaf_search.job_problem names a problem in, over the edges of every field; and
SEARCH's argument bytes are what the front end reads them as."""

import itertools

from amaranth import Module, Signal
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import (
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    MAX_JOB_PLY,
    WINDOW,
    job_problem,
)
from posdata.hdl.common.contract import SEARCH_ARGUMENTS, SEARCH_BYTES, search_arguments
from posdata.hdl.search.evaluator import SCORE
from posdata.hdl.search.records import job_refused


def edges(top: int) -> list[int]:
    return sorted({0, 1, top - 1, top, top + 1, 255} & set(range(256)))


WINDOWS = [(a, b) for a in (-WINDOW - 1, -WINDOW, -1, 0, WINDOW - 1, WINDOW)
           for b in (-WINDOW, 0, 1, WINDOW, WINDOW + 1)]
JOBS = [(a, b, d, p, e) for (a, b), d, p, e in itertools.product(
    WINDOWS, edges(MAX_JOB_DEPTH), edges(MAX_JOB_PLY), edges(MAX_EXTENSIONS))]


def test_the_gateware_refuses_exactly_what_the_rules_name():
    """The front end's fields as it reads them: the window signed 16 bits, the rest a byte."""
    m = Module()
    alpha, beta = Signal(SCORE), Signal(SCORE)
    depth, ply, ext = Signal(8), Signal(8), Signal(8)
    refused = Signal()
    m.d.comb += refused.eq(job_refused(alpha, beta, depth, ply, ext))
    board = Board()
    differ = []

    async def bench(ctx):
        for job in JOBS:
            for signal, value in zip((alpha, beta, depth, ply, ext), job):
                ctx.set(signal, value)
            if bool(ctx.get(refused)) != (job_problem(board, *job) is not None):
                differ.append(job)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert len(JOBS) > 1000 and not differ, \
        f"{len(differ)} jobs differ; the first (alpha, beta, depth, ply, ext): {differ[0]}, " \
        f"engine says {job_problem(board, *differ[0])!r}"


def test_search_arguments_are_the_fields_at_their_places():
    data = search_arguments(alpha=-WINDOW, beta=1234, depth=5, ply=99, ext=3, fifty=77)
    assert len(data) == SEARCH_BYTES
    read = {name: int.from_bytes(data[offset:offset + size], "little", signed=signed)
            for name, (offset, size, signed) in SEARCH_ARGUMENTS.items()}
    assert read == {"alpha": -WINDOW, "beta": 1234, "depth": 5, "ply": 99, "ext": 3,
                    "fifty": 77}

"""A cross-check campaign (``posdata compare --random N``): N seeded random positions, each
counted in software and on the gateware, spread over the workers (sim.runs.pool); the first
position (in the campaign's order) whose counts or move lists differ is the one reported.

The positions are reached by random legal games from the variant's start, so they hold what
games hold (castling rights lost, en passant squares, promotions late in long games); the seed
alone fixes them, on any machine and with any number of workers.
"""

import random
from dataclasses import dataclass

from posdata.engine.rules.board import Board

from .gen_perft import subtree
from .pool import run_in_workers, scheduler_address

#: plies of the random games: a few (openings) to many (endgames)
MIN_PLIES, MAX_PLIES = 2, 80


def random_positions(n: int, seed: int, variant: str = "chess") -> list[str]:
    """``n`` FENs, each after a random legal game of MIN_PLIES to MAX_PLIES plies (cut short
    at mate or stalemate: the last position with a legal move is kept)."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < n:
        board = Board(None, variant)
        for _ in range(rng.randint(MIN_PLIES, MAX_PLIES)):
            moves = board.legal_moves()
            if not moves:
                break
            board.makemove(rng.choice(moves))
        if not board.legal_moves():
            board.takeback()  # a mate or stalemate has nothing below it to compare
        fens.append(board.fen())
    return fens


@dataclass
class CampaignResult:
    nodes: int = 0              #: the gateware's count
    sw_nodes: int = 0           #: the reference's
    cycles: int = 0             #: generator cycles (gen) or chip clocks (hw)
    mismatch: str | None = None

    @property
    def match(self) -> bool:
        return self.mismatch is None and self.nodes == self.sw_nodes


def campaign_job(fen: str, depth: int, backend: str, target, bulk: bool = False,
                 variant: str = "chess", factory=None) -> CampaignResult:
    """One position (a module-level function: workers call it by name). gen: the generator in
    the loop, held to the reference at every node; hw: the perft chip's count against the
    software's, localised to the first differing node when they differ."""
    if backend == "gen":
        r = subtree(fen, depth, "gen", target, factory, (), True, bulk, variant)
        return CampaignResult(r.nodes, r.sw_nodes, r.cycles, r.mismatch)
    from .chip_perft import run_chip_perft
    r = run_chip_perft(Board(fen, variant), depth, "both", target, bulk, 1, factory=factory)
    return CampaignResult(r.nodes, r.sw_nodes, r.clocks, r.mismatch)


def run_campaign(fens: list[str], depth: int, backend: str = "gen", target="cxxrtl",
                 jobs: int = 1, scheduler: str | None = None, bulk: bool = False,
                 variant: str = "chess", progress=None, factory=None) -> list[CampaignResult]:
    """Every position's result, in the order of ``fens``; ``factory`` (tests) builds the
    driver (gen) or chip (hw) in this process."""
    chip = None
    if backend == "hw" and factory is None and getattr(target, "name", target) == "board":
        from ..drivers.targets import make_chip
        chip = make_chip(target)  # one serial port for the whole campaign, in this process
        factory = lambda: chip  # noqa: E731
    remote = factory is None and (jobs > 1 or bool(scheduler_address(scheduler)))
    job_list = [(fen, depth, backend, target, bulk, variant, factory) for fen in fens]
    tally = [0, 0, 0]  # positions, nodes, mismatches

    def done(i, r: CampaignResult) -> None:
        tally[0] += 1
        tally[1] += r.nodes
        tally[2] += not r.match
        if progress:
            progress.update(f"compare --random [{backend}]: {tally[0]}/{len(fens)} positions, "
                            f"{tally[1]:,} nodes, {tally[2]} mismatching")

    try:
        return list(run_in_workers(campaign_job, job_list, jobs if remote else 1,
                                   scheduler if remote else None, done))
    finally:
        if chip is not None:
            chip.close()


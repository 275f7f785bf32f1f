"""One tactical problem for bench/search_play.py's suite: the move each searcher chooses at a
fixed depth (the chip's search over the reference and, when given, over the compiled thread;
the software search), with its score, nodes and time."""

import time
from dataclasses import dataclass

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.searcher import Limits, Searcher

REF, HW, SOFTWARE = "chip-ref", "chip-hw", "software"


@dataclass
class Answer:
    move: str | None
    score: int
    nodes: int
    seconds: float


def chip_answer(fen: str, leaf, depth: int, chip_depth: int) -> Answer:
    board = Board(fen)
    start = time.perf_counter()
    r = HostSearch(board, leaf, chip_depth).search(depth)
    seconds = time.perf_counter() - start
    return Answer(None if r.best_move is None else board.uci(r.best_move), r.score, r.nodes,
                  seconds)


def software_answer(fen: str, depth: int) -> Answer:
    board = Board(fen)
    start = time.perf_counter()
    r = Searcher().think(board, Limits(depth=depth))
    seconds = time.perf_counter() - start
    return Answer(None if r.best_move is None else board.uci(r.best_move), r.score, r.nodes,
                  seconds)


def answers(fen: str, depth: int, chip_depth: int, model=None) -> dict[str, Answer]:
    """Each searcher's answer; the compiled thread's (HW) only with ``model``."""
    out = {REF: chip_answer(fen, ReferenceLeaf(), depth, chip_depth)}
    if model is not None:
        out[HW] = chip_answer(fen, model, depth, chip_depth)
    out[SOFTWARE] = software_answer(fen, depth)
    return out


def differs(a: Answer, b: Answer) -> bool:
    """The chip over the reference and over the compiled thread must search the same tree."""
    return (a.move, a.score, a.nodes) != (b.move, b.score, b.nodes)

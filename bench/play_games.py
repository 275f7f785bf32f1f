"""The two players of bench/search_play.py and one game between them, judged by python-chess.

* The chip: the host's search (engine.host_search.HostSearch) to a fixed depth over a leaf
  searcher below ``chip_depth``: the reference (ReferenceLeaf) or the compiled search thread
  (sim.drivers.search_cxxrtl.SearchModel), which return the same moves. The chip's evaluation
  (engine.leaf_eval), fail-hard alpha-beta, no repetition or fifty-move knowledge.
* The software: engine.search.Searcher to the same depth (iterative deepening, PV and history
  ordering, check extension, repetition draws, eval.py's full evaluation).

Each player sees the game through its own engine board, the moves pushed one by one (so the
software search sees the game's history). A python-chess board holds the same game and ends it:
checkmate, stalemate, insufficient material, threefold repetition, the fifty-move rule (and the
75-move and fivefold rules, which come later). A game that reaches the ply cap is adjudicated
on material (pawn 1, knight and bishop 3, rook 5, queen 9): a side ahead by MATERIAL_WIN or
more wins, else it is a draw.
"""

import time
from dataclasses import dataclass, field

import chess

from posdata.engine.board import Board
from posdata.engine.host_search import HostSearch
from posdata.engine.search import Limits, Searcher

CHIP, SOFTWARE = "chip", "software"
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
MATERIAL_WIN = 3  #: at the ply cap, a minor piece ahead wins


class ChipPlayer:
    name = CHIP

    def __init__(self, leaf, depth: int, chip_depth: int):
        self.leaf, self.depth, self.chip_depth = leaf, depth, chip_depth

    def move(self, board) -> int:
        return HostSearch(board, self.leaf, self.chip_depth).search(self.depth).best_move


class SoftwarePlayer:
    name = SOFTWARE

    def __init__(self, depth: int):
        self.depth = depth

    def move(self, board) -> int:
        return Searcher().think(board, Limits(depth=self.depth)).best_move


@dataclass
class Game:
    opening: str
    white: str           #: CHIP or SOFTWARE
    result: str          #: "1-0", "0-1" or "1/2-1/2"
    reason: str          #: checkmate, stalemate, threefold, ...
    moves: list[str]     #: the whole game in UCI, the opening included
    seconds: dict[str, float] = field(default_factory=dict)  #: thinking time per player
    searched: dict[str, int] = field(default_factory=dict)   #: moves searched per player

    def points(self, player: str) -> float:
        """What ``player`` scored: 1, 1/2 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        return float((self.result == "1-0") == (self.white == player))


def material(board: chess.Board, color: bool) -> int:
    return sum(v * len(board.pieces(kind, color)) for kind, v in VALUES.items())


def judge(board: chess.Board, ply_cap: int) -> tuple[str, str] | None:
    """(result, reason) when the game is over, else None."""
    outcome = board.outcome()  # mate, stalemate, insufficient material, 75 moves, fivefold
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower().replace("_", " ")
    if board.is_repetition(3):
        return "1/2-1/2", "threefold"
    if board.is_fifty_moves():
        return "1/2-1/2", "fifty moves"
    if board.ply() >= ply_cap:
        lead = material(board, chess.WHITE) - material(board, chess.BLACK)
        result = "1-0" if lead >= MATERIAL_WIN else "0-1" if lead <= -MATERIAL_WIN else "1/2-1/2"
        return result, "ply cap"
    return None


def play(opening, white, black, ply_cap: int) -> Game:
    """One game from ``opening`` (an Opening) between two players; the players' moves are
    checked by python-chess (an illegal one is a RuntimeError)."""
    ours, theirs = Board(), chess.Board()
    for word in opening.moves:
        ours.push_uci(word)
        theirs.push_uci(word)
    seconds = {CHIP: 0.0, SOFTWARE: 0.0}
    searched = {CHIP: 0, SOFTWARE: 0}
    while (verdict := judge(theirs, ply_cap)) is None:
        player = white if theirs.turn == chess.WHITE else black
        start = time.perf_counter()
        m = player.move(ours)
        seconds[player.name] += time.perf_counter() - start
        searched[player.name] += 1
        word = None if m is None else ours.uci(m)
        if word is None or chess.Move.from_uci(word) not in theirs.legal_moves:
            raise RuntimeError(f"{player.name} played {word} in {theirs.fen()} "
                               f"(opening {opening.name})")
        ours.push_uci(word)
        theirs.push_uci(word)
    return Game(opening.name, white.name, *verdict, [m.uci() for m in theirs.move_stack],
                seconds, searched)

"""The oracles of the chip search's reference (engine/search/leaf_search.py), written apart from it.

``plain_value``: negamax without pruning over the same tree definition: every legal move at a
full-width or evasion node (from ``Board.legal_moves``, not the capture finder), at a quiescence
node the evaluation or any capture or queen promotion (chosen by the move's flags), the check
extension (a node of depth >= 0 in check, while the line has extensions left), evasions in the
first quiescence plies, repetition and fifty-move draws at full-width nodes but the root, the ply
limit, mate and stalemate scores (a repetition or fifty-move draw costs the root's side
CONTEMPT). It returns the exact score of the tree, which fail-hard
alpha-beta must return clamped to its window. Transpositions are remembered by the position, the
depth, the ply, the extensions and the positions a repetition could reach back to, which fix a
subtree entirely. A capture tree without pruning can be vast, so the oracle gives up (None) past
``budget`` distinct positions: the tests compare the positions it can settle and hold their
number, and what they cover, to floors.

The constants are read from engine.search.leaf_search at each call (tests may lower them); the rules
themselves are written here again, from docs/chip_search.md.

``mate_positions``: positions from python-chess (checkmated, stalemated, mate in one), the
test-only oracle of mate and stalemate.
"""

import random
from functools import cache

import chess

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, PROMOTION, QUEEN
from posdata.engine.rules.perft import tree_fens
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search import leaf_search
from posdata.engine.search.leaf_eval import leaf_evaluate
from posdata.engine.search.leaf_structure import structure_of
from posdata.engine.search.searcher import DRAW, INFINITY, MATE
from tests.hw_positions import EXTRA_STARTS, random_positions


class OverBudget(Exception):
    pass


def _quiescence_move(m: int) -> bool:
    if m & PROMOTION:
        return m >> 18 == QUEEN
    return bool(m & CAPTURE)


def _reachable(board) -> tuple:
    """The earlier positions a repetition test of this node or its subtree can compare."""
    back = min(board.fifty, leaf_search.REPETITION_PLIES)
    return tuple(entry[5] for entry in board.hist[len(board.hist) - back:]) if back else ()


def _drawn(board) -> bool:
    if board.fifty >= leaf_search.FIFTY_PLIES:
        return True
    mask = (1 << leaf_search.HASH_BITS) - 1
    back = min(board.fifty, leaf_search.REPETITION_PLIES)
    n = len(board.hist)
    return any((board.hist[n - d][5] - board.hash) & mask == 0
               for d in range(2, back + 1, 2) if n - d >= 0)


def _entered(board, depth: int, ext: int) -> tuple[bool, int, int]:
    """(in check, depth, extensions) of a node as it is entered: the check extension."""
    check = board.in_check()
    if depth >= 0 and check and ext < leaf_search.MAX_EXTENSIONS:
        return check, depth + 1, ext + 1
    return check, depth, ext


def _value(board, depth: int, ply: int, ext: int, memo: dict, budget: int) -> int:
    key = (board.hash, depth, ply, ext, _reachable(board))
    if key in memo:
        return memo[key]
    if len(memo) >= budget:
        raise OverBudget
    check, depth, ext = _entered(board, depth, ext)
    below = -depth
    if depth >= 1 and ply > 0 and _drawn(board):
        best = DRAW - leaf_search.CONTEMPT if ply % 2 == 0 else DRAW + leaf_search.CONTEMPT
    elif depth <= 0 and below >= leaf_search.QS_PLY_LIMIT:
        best = leaf_evaluate(board) + structure_of(board)
    else:
        every = depth >= 1 or (check and below < leaf_search.QS_CHECK_PLIES)
        best = -INFINITY if every else leaf_evaluate(board) + structure_of(board)
        found = False
        for m in board.moves():
            if not every and not _quiescence_move(m) or not board.makemove(m):
                continue
            found = True
            try:
                best = max(best, -_value(board, depth - 1, ply + 1, ext, memo, budget))
            finally:
                board.takeback()
        if every and not found:
            best = -(MATE - ply) if check else DRAW
    memo[key] = best
    return best


def plain_value(fen: str, depth: int, ply: int = 0, budget: int = 3000) -> int | None:
    """The exact score of ``fen``'s tree of ``depth`` (the position ``ply`` plies below the
    search's root), None past ``budget`` positions."""
    return board_value(Board(fen), depth, ply, 0, budget)


def board_value(board, depth: int, ply: int = 0, extensions: int = 0,
                budget: int = 3000) -> int | None:
    """``plain_value`` of a board with its history (what repetitions compare against), its
    line having made ``extensions`` check extensions; the board is left as given."""
    try:
        return _value(board, depth, ply, extensions, {}, budget)
    except OverBudget:
        return None


cached_plain_value = cache(plain_value)


def move_values(fen: str, depth: int, ply: int = 0, budget: int = 100_000) -> dict[int, int]:
    """Per legal move of a full-width root, the exact score of its child from the root's side
    (the root's check extension applied); KeyError-free: every legal move is a key."""
    board = Board(fen)
    _, depth, ext = _entered(board, depth, 0)
    memo, out = {}, {}
    for m in board.legal_moves():
        board.makemove(m)
        try:
            out[m] = -_value(board, depth - 1, ply + 1, ext, memo, budget)
        finally:
            board.takeback()
    return out


#: small positions with the rare moves, whose trees the plain negamax can settle
FEATURE_STARTS = (
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",            # castling both ways, rooks en prise
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",               # promotions, both sides
    "1r2k3/P7/8/8/8/8/7p/4K1N1 b - - 0 1",             # promotion by capture, and under it
    "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1",                # en passant that exposes the king
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",                 # in check: capture or flee
    "4k3/8/2n5/8/1B6/8/3R4/3K4 b - - 0 1",
)


@cache
def census_positions(count: int, seed: int = 27) -> tuple[str, ...]:
    """The perft census: seeded random playouts (tests/hw_positions.py), the extra starts
    (promotions, en passant, castling, checks), small positions with the rare moves and the
    first plies of those and of the standard positions."""
    fens = list(random_positions(count, seed)) + list(EXTRA_STARTS) + list(FEATURE_STARTS)
    for fen in [p.fen for p in STANDARD_POSITIONS] + list(FEATURE_STARTS):
        fens += tree_fens(fen, 2)[1:9]
    return tuple(dict.fromkeys(fens))


def _random_board(rng, white: str) -> chess.Board | None:
    """Kings and ``white``'s pieces on random squares (white to move), if the position is
    legal for python-chess."""
    board = chess.Board(None)
    squares = rng.sample(range(64), 2 + len(white))
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for sq, letter in zip(squares[2:], white):
        if letter == "P" and chess.square_rank(sq) in (0, 7):
            return None
        board.set_piece_at(sq, chess.Piece.from_symbol(letter))
    board.turn = rng.choice((chess.WHITE, chess.BLACK))
    return board if board.is_valid() else None


@cache
def mate_positions(count: int = 12, seed: int = 5) -> dict[str, tuple[str, ...]]:
    """python-chess's verdicts: ``checkmated`` and ``stalemated`` (the side to move), and
    ``mate_in_one`` (the side to move mates with some move), ``count`` of each."""
    rng = random.Random(seed)
    found = {"checkmated": [], "stalemated": [], "mate_in_one": []}
    armies = ("Q", "R", "QB", "RN", "QP", "RR", "BBN")
    while min(len(v) for v in found.values()) < count:
        board = _random_board(rng, rng.choice(armies))
        if board is None:
            continue
        fen = board.fen()
        if board.is_checkmate():
            kind = "checkmated"
        elif board.is_stalemate():
            kind = "stalemated"
        elif any(_mates(board, m) for m in board.legal_moves):
            kind = "mate_in_one"
        else:
            continue
        if len(found[kind]) < count:
            found[kind].append(fen)
    return {k: tuple(v) for k, v in found.items()}


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()

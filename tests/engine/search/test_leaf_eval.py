"""The chip search's evaluation: its ROM words are eval.py's tables, its king blend is eval.py's
within rounding, and it follows make and unmake by square writes alone."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BISHOP, BLACK, EMPTY, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from posdata.engine.search import eval as full_eval
from posdata.engine.search.leaf_eval import (
    KING_FIELD_BITS,
    PHASE_ONE,
    PHASE_WEIGHT,
    PST_BITS,
    PST_WORD_BITS,
    EvalSums,
    eval_after,
    king_words,
    leaf_evaluate,
    move_writes,
    pst_address,
    pst_words,
    signed,
)
from tests.engine.search.leaf_oracle import census_positions

FENS = census_positions(16)


def test_phase_weights_rescale_eval_py_material():
    assert PHASE_WEIGHT[KNIGHT] == 13 and PHASE_WEIGHT[BISHOP] == 13
    assert PHASE_WEIGHT[ROOK] == 20 and PHASE_WEIGHT[QUEEN] == 36
    assert PHASE_WEIGHT[PAWN] == PHASE_WEIGHT[KING] == 0
    start = EvalSums.of(Board())
    assert start.weight == PHASE_ONE  # the start position is a full middlegame, as in eval.py
    for p in (KNIGHT, BISHOP, ROOK, QUEEN):  # within half a unit of eval.py's share
        exact = full_eval.PIECE_VALUE[p] * PHASE_ONE / full_eval.PHASE_MAX
        assert abs(PHASE_WEIGHT[p] - exact) <= 0.5


def test_pst_words_hold_eval_py_tables():
    words = pst_words()
    assert len(words) == 1024 and all(0 <= w < 1 << PST_WORD_BITS for w in words)
    for color in (WHITE, BLACK):
        for piece in range(PAWN, KING + 1):
            for sq in range(64):
                w = words[pst_address(color, piece, sq)]
                assert signed(w & (1 << PST_BITS) - 1, PST_BITS) == \
                    full_eval.SIGNED_PST[color * 8 + piece][sq]
                assert w >> PST_BITS == PHASE_WEIGHT[piece]


def test_king_words_hold_eval_py_king_tables():
    mask = (1 << KING_FIELD_BITS) - 1
    for sq, w in enumerate(king_words()):
        assert signed(w & mask, KING_FIELD_BITS) == full_eval.KING_MG[sq]
        assert signed(w >> KING_FIELD_BITS, KING_FIELD_BITS) == full_eval.KING_EG[sq]


def rom_evaluate(board, words, kings) -> int:
    """The evaluation as the chip forms it from the ROM images alone."""
    pst = weight = 0
    bishops = [0, 0]
    for sq, (c, p) in enumerate(zip(board.color, board.piece)):
        if c == EMPTY:
            continue
        w = words[pst_address(c, p, sq)]
        pst += signed(w & (1 << PST_BITS) - 1, PST_BITS)
        weight += w >> PST_BITS
        bishops[c] += p == BISHOP
    phase = min(weight, PHASE_ONE)
    mask = (1 << KING_FIELD_BITS) - 1
    for c, sign in ((WHITE, 1), (BLACK, -1)):
        k = kings[board.king[c] if c == WHITE else board.king[c] ^ 56]
        mg, eg = signed(k & mask, KING_FIELD_BITS), signed(k >> KING_FIELD_BITS, KING_FIELD_BITS)
        pst += sign * ((mg * phase + eg * (PHASE_ONE - phase)) >> 8)
        pst += sign * (full_eval.BISHOP_PAIR if bishops[c] >= 2 else 0)
    return pst if board.side == WHITE else -pst


@pytest.mark.parametrize("fen", FENS[:40])
def test_rom_images_give_the_reference_evaluation(fen):
    board = Board(fen)
    assert rom_evaluate(board, pst_words(), king_words()) == leaf_evaluate(board)


def eval_py_king_term(board, c) -> float:
    """eval.py's blended king term of side ``c`` (its formula, from its own tables)."""
    pieces = sum(full_eval.PIECE_VALUE[p] for col, p in zip(board.color, board.piece)
                 if col != EMPTY and p not in (PAWN, KING))
    phase = min(pieces, full_eval.PHASE_MAX)
    k = board.king[c] if c == WHITE else board.king[c] ^ 56
    return (full_eval.KING_MG[k] * phase + full_eval.KING_EG[k] * (full_eval.PHASE_MAX - phase)) \
        // full_eval.PHASE_MAX


@pytest.mark.parametrize("fen", FENS)
def test_king_blend_is_eval_py_within_rounding(fen):
    """The score is the piece-square sum, the bishop pairs and the kings' terms, each king's
    within 2 centipawns of eval.py's blend (the phase rounded to 256ths)."""
    board = Board(fen)
    sums = EvalSums.of(board)
    pairs = sum(sign * full_eval.BISHOP_PAIR for c, sign in ((WHITE, 1), (BLACK, -1))
                if sum(p == BISHOP and col == c for col, p in zip(board.color, board.piece)) >= 2)
    kings = eval_py_king_term(board, WHITE) - eval_py_king_term(board, BLACK)
    assert abs(sums.score(WHITE, board.king) - (sums.pst + pairs + kings)) <= 4, fen
    assert sums.score(BLACK, board.king) == -sums.score(WHITE, board.king)


@pytest.mark.parametrize("fen", FENS[:30])
def test_square_writes_follow_make_and_unmake(fen):
    """For every legal move: the parent's sums plus make's writes are the child's sums from
    scratch, the child's evaluation is known without making the move, and unmake's writes (the
    same squares back, last first) return the parent's sums."""
    board = Board(fen)
    parent = EvalSums.of(board)
    for m in board.legal_moves():
        writes = move_writes(board, m)
        child_eval = eval_after(board, parent, m)
        sums = EvalSums(parent.pst, parent.weight, parent.bishops)
        for sq, old, new in writes:
            sums.write(sq, old, new)
        board.makemove(m)
        assert sums == EvalSums.of(board), (fen, m)
        assert child_eval == leaf_evaluate(board), (fen, m)
        for sq, old, new in reversed(writes):
            sums.write(sq, new, old)
        board.takeback()
        assert sums == parent

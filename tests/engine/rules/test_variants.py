"""The variant registry (engine.rules.variants) and what it promises the gateware: 8 tables at most,
3-bit piece codes, the (colour, code) -> table mapping, promotions in order, attack kinds; start
positions, letters and promotion sets as Fairy-Stockfish has them (pyffish, pinned in the dev
extra)."""

import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BLACK, BPAWN, KING, PAWN, QUEEN, WHITE, ptype
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.pieces import AttackKind
from posdata.engine.rules.variants import (
    BY_NAME,
    CHANCELLOR,
    VARIANT_NAMES,
    VARIANTS,
    VariantError,
    get_variant,
)

FAIRY = ("amazon", "almost", "chigorin", "nightrider")


def test_names():
    assert VARIANT_NAMES == ("chess", "chess960", "amazon", "almost", "chigorin", "nightrider",
                             "grasshopper", "hoppelpoppel", "berolina", "shatranj", "makruk",
                             "pawnsideways")
    assert get_variant("fischerandom") is BY_NAME["chess960"]
    with pytest.raises(VariantError) as info:
        get_variant("shogi")
    assert "unknown variant 'shogi'" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_codes_and_tables_fit_the_gateware(variant):
    codes = {p.code for p in variant.pieces}
    assert codes <= set(range(1, 8)) and {PAWN, KING} <= codes
    tables = {variant.table_index(c, code) for c in (WHITE, BLACK) for code in codes}
    assert tables <= set(range(8))
    assert variant.table_index(BLACK, PAWN) == BPAWN and variant.table_index(WHITE, PAWN) == PAWN
    # distinct movers get distinct tables
    movers = {(variant.table_index(c, code), variant.by_code[code].moves, code == PAWN and c)
              for c in (WHITE, BLACK) for code in codes}
    assert len({t for t, _, _ in movers}) == len(movers)
    for c in (WHITE, BLACK):
        assert all(code in codes for code in variant.promotions[c])


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_every_variant_maps_pieces_by_ptype(variant):
    """One table order: a piece's table is its ptype in every variant, so the engine's tables
    are stored in the order the gateware's ROM reads them (codes 1..7, both colours)."""
    for c in (WHITE, BLACK):
        for code in range(1, 8):
            assert variant.table_index(c, code) == ptype(c, code)
    assert ptype(BLACK, PAWN) == BPAWN == 0 and ptype(WHITE, CHANCELLOR) == 7


def test_chigorin_has_a_chancellor_and_a_queen_at_once():
    v = BY_NAME["chigorin"]
    assert v.table_index(WHITE, CHANCELLOR) == 7 and v.layout[7] == "RN"
    assert v.layout[QUEEN] == "Q"
    assert v.promotions == ((CHANCELLOR, 4, 2), (QUEEN, 4, 3))
    assert v.attack_kinds(WHITE, CHANCELLOR) == (AttackKind.ORTHOGONAL_RIDER
                                                 | AttackKind.KNIGHT_LEAPER)
    assert v.table_attacks[7] == v.attack_kinds(WHITE, CHANCELLOR)
    assert v.table_attacks[BPAWN] == AttackKind.PAWN


@pytest.mark.parametrize("name", ["chess", "chess960"] + list(FAIRY))
def test_start_position_and_promotions_as_fairy_stockfish(name):
    variant = get_variant(name)
    assert pyffish.start_fen(variant.fsf_name) == variant.start_fen
    board = Board(variant=variant)
    assert board.fen() == variant.start_fen
    # a pawn on the 7th of each side: the promotion letters of each colour
    for side, fen in ((WHITE, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"),
                      (BLACK, "4k3/8/8/8/8/8/1p6/4K3 b - - 0 1")):
        ours = [board_uci for board_uci in _legal_uci(Board(fen, variant)) if len(board_uci) == 5]
        theirs = [m for m in pyffish.legal_moves(variant.fsf_name, fen, []) if len(m) == 5]
        assert sorted(ours) == sorted(theirs)
        want = [variant.by_code[c].letter for c in variant.promotions[side]]
        assert [m[4] for m in ours] == want  # generation order


def _legal_uci(board):
    return [board.uci(m) for m in board.legal_moves()]


@pytest.mark.parametrize("name, fen, word", [
    ("amazon", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"),
    ("almost", "rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1", "piece letter"),
    ("chess", "rnbckbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBCKBNR w KQkq - 0 1", "piece letter"),
    # chigorin: white cannot have a queen, black no chancellor (no start piece, no promotion)
    ("chigorin", "rbbqkbbr/pppppppp/8/8/8/8/PPPPPPP1/RNNCKNNQ w Qkq - 0 1", "cannot promote"),
    ("chigorin", "rbbckbbr/pppppppp/8/8/8/8/PPPPPPPP/RNNCKNNR w KQkq - 0 1", "cannot promote"),
    ("chigorin", "rbbqkbbr/pppppppp/8/8/8/8/PPPPPPP1/RNNCKNBR w KQkq - 0 1", "cannot promote"),
])
def test_letters_the_variant_does_not_have(name, fen, word):
    with pytest.raises(FenError) as info:
        Board(fen, name)
    assert word in str(info.value) and "\n" not in str(info.value)


def test_material_beyond_promotion_is_refused():
    """Nine white amazons are a game's material once all eight pawns have promoted; with a pawn
    left they are not."""
    Board("4k3/8/8/8/8/8/AAAAAAAA/A3K3 b - - 0 1", "amazon")
    with pytest.raises(FenError, match="missing pawns"):
        Board("4k3/8/8/8/8/P7/AAAAAAAA/A3K3 b - - 0 1", "amazon")


def test_mutated_fens_of_every_variant_parse_or_raise_fen_error():
    """Random edits of start FENs (Chess960's with Shredder-FEN rights): each gives a board
    whose FEN reads back the same and whose moves make and take back, or a one-line FenError."""
    import random

    from posdata.engine.rules.chess960 import start_fen
    rng = random.Random(960)
    alphabet = "pnbrqkacPNBRQKAC12345678/ -wbKQkqHAhaGgabcdefgh0369"
    accepted = rejected = 0
    for _ in range(3000):
        variant = rng.choice(VARIANTS)
        source = start_fen(rng.randrange(960)) if variant.chess960 else variant.start_fen
        chars = list(source)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars) + 1)
            r = rng.random()
            if r < 0.4 and i < len(chars):
                chars[i] = rng.choice(alphabet)
            elif r < 0.7:
                chars.insert(i, rng.choice(alphabet))
            elif i < len(chars):
                del chars[i]
        try:
            board = Board("".join(chars), variant)
        except FenError as e:
            assert "\n" not in str(e)
            rejected += 1
            continue
        accepted += 1
        assert Board(board.fen(), variant).fen() == board.fen()
        before = board.fen()
        for m in board.legal_moves():
            board.makemove(m)
            board.takeback()
        assert board.fen() == before
    assert accepted > 30 and rejected > 2000

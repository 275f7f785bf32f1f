"""Sample positions per variant for the gateware checks (tests, compare --variant, the variant
benchmark): the start position and a few built to reach castling, promotions, en passant and
the new pieces' moves within two plies."""

from posdata.engine.chess960 import start_fen
from posdata.engine.variants import get_variant

#: positions that reach the rare cases sooner ({X}: the new piece, {x}: black's)
FAIRY_EXTRAS = (
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1{x}3pp/8/8/8/8/P1{X}3PP/R3K2R b KQkq - 0 1",
    "4k3/1P4P1/8/2{x}5/5{X}2/8/1p4p1/4K3 w - - 0 1",
    "{x}3k3/1pp2pp1/8/3pP3/8/8/1PP2PP1/4K2{X} w - d6 0 1",
    "4k3/8/8/3{X}4/8/8/8/4K3 w - - 0 1",
)
#: per variant, its new piece's letter (white's; black's in lower case unless listed)
NEW_PIECE = {"chess": "Q", "amazon": "A", "almost": "C", "chigorin": "C", "nightrider": "N"}
BLACK_LETTER = {"chigorin": "q"}  #: chigorin's black has a queen, not a chancellor

#: Chess960: castling where king and rook start anywhere (Shredder-FEN rights)
CHESS960 = (
    start_fen(0),
    start_fen(959),
    # king on b1: queen side it moves east to c1; king side it crosses five squares
    "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
    # king already on g1 (king side: the king stays, the rook jumps over it)
    "r5kr/pppppppp/8/8/8/8/PPPPPPPP/R5KR w HAha - 0 1",
    # king f1, rook g1: the two swap; black to move, the same on rank 8
    "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 b GBgb - 0 1",
    # king side: the rook stands on the king's target (allowed); queen side a bishop blocks
    "r1b1k1r1/pppppppp/8/8/8/8/PPPPPPPP/R1B1K1R1 w GAga - 0 1",
    # a knight on the king's target blocks the king side
    "r3k1nr/pppppppp/8/8/8/8/PPPPPPPP/R3K1NR b HAha - 0 1",
    # promotions and en passant with castling rights (X-FEN letters)
    "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",
)


def sample_positions(name: str) -> list[str]:
    variant = get_variant(name)
    if variant.name == "chess960":
        return list(CHESS960)
    white = NEW_PIECE[variant.name]
    black = BLACK_LETTER.get(variant.name, white.lower())
    return [variant.start_fen] + [t.replace("{X}", white).replace("{x}", black)
                                  for t in FAIRY_EXTRAS]

"""Sample positions per variant for the gateware checks (tests, compare --variant, the variant
benchmark): the start position and a few built to reach castling, promotions, en passant and
the new pieces' moves within two plies."""

from posdata.engine.rules.chess960 import start_fen
from posdata.engine.rules.variants import get_variant

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


#: Muller's legs (walks with modes): per variant, positions that reach its rare cases within
#: three plies: hops and screens, lame blocks, move-only and capture-only targets, an asymmetric
#: piece of each colour, promotions (makruk's on the sixth rank), en passant after a pawn's
#: double step (Berolina's diagonal one), castling, and shatranj's bare king
LEGS = {
    "grasshopper": (
        "r3k2r/ppg2gpp/8/3pP3/8/8/PPG2GPP/R3K2R w KQkq - 0 1",
        "4k3/1P4P1/2g5/8/8/5G2/1p4p1/4K3 w - - 0 1",
        "4k3/g1g2g1g/8/3q4/3Q4/8/G1G2G1G/4K3 w - - 0 1",
    ),
    "hoppelpoppel": (
        "r3k2r/pppn1ppp/4b3/8/8/4B3/PPPN1PPP/R3K2R w KQkq - 0 1",
        "4k3/1P4P1/2n5/8/3b4/5N2/1p4p1/4K3 w - - 0 1",
        "1n2k1n1/8/2b2b2/8/8/2B2B2/8/1N2K1N1 w - - 0 1",
    ),
    "berolina": (
        "4k3/2p1p3/8/1P1P1P2/8/8/8/4K3 b - - 0 1",
        "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
    ),
    "shatranj": (
        "4k3/8/8/8/3q4/8/8/R3K3 w - - 0 1",
        "4k3/1P6/8/3r4/8/8/6p1/4K3 w - - 0 1",
        "3k4/8/2n5/8/8/5B2/8/3K4 w - - 0 1",
        "3k4/1r6/8/8/8/8/6R1/3K4 b - - 0 1",
    ),
    "makruk": (
        "4k3/8/8/1P4P1/1p4p1/8/8/4K3 w - - 0 1",
        "3k4/2s1s3/8/8/8/8/2S1S3/3K4 w - - 0 1",
        "r2k3r/8/2pp1m2/8/8/2PP1M2/8/R2K3R b - - 0 1",
    ),
    "pawnsideways": (
        "4k3/2p1p3/8/3P1P2/8/8/8/4K3 b - - 0 1",
        "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    ),
}


def sample_positions(name: str) -> list[str]:
    variant = get_variant(name)
    if variant.name == "chess960":
        return list(CHESS960)
    if variant.name in LEGS:
        return [variant.start_fen, *LEGS[variant.name]]
    white = NEW_PIECE[variant.name]
    black = BLACK_LETTER.get(variant.name, white.lower())
    return [variant.start_fen] + [t.replace("{X}", white).replace("{x}", black)
                                  for t in FAIRY_EXTRAS]

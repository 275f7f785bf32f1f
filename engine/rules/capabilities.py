"""What runs each variant, declared once: every place a variant can run (the software, the
gateware generator, the perft chip, the chip's search, each board) with the rule that decides
it, computed from the variant's facts (its pieces, pawn, castling, tables) so that a new variant
gets its row without another list. Every refusal (the CLI, the UCI engine, the search's job
check, synth) asks ``refusal``; ``posdata variants`` and docs/variants.md print the table.

Where the gateware knows a limit the engine computes here too (the generator's tables, the
perft chip's attack planes), hdl keeps its own check, refusing with this module's line, and a
test holds the two equal for every variant and for made-up ones
(tests/hdl/test_capabilities_agree.py).
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .defs import BLACK, KING, N_TABLES, PAWN, WHITE, ptype
from .pieces import AttackKind, parse_piece
from .variants import CHESS, VARIANTS, Variant, get_variant

#: the attack kinds the perft chip's legality unit has planes for (hdl.chip.chessboard builds
#: one plane per rider and leaper kind here, the kings' squares and the pawns' plane); the king's
#: step is the king's alone
CHIP_ATTACKS = (AttackKind.ORTHOGONAL_RIDER | AttackKind.DIAGONAL_RIDER
                | AttackKind.KNIGHT_LEAPER | AttackKind.KNIGHT_RIDER | AttackKind.KING_STEP
                | AttackKind.PAWN | AttackKind.FERZ_STEP | AttackKind.WAZIR_STEP
                | AttackKind.ALFIL_LEAPER | AttackKind.DABBABA_LEAPER | AttackKind.FORWARD_WAZIR
                | AttackKind.HOP_ORTHOGONAL | AttackKind.HOP_DIAGONAL)


def table_problem(variant: Variant) -> str | None:
    """The generator's ROM holds 8 tables: a table per piece code (a black pawn's 0) and one
    more for each piece that moves by colour (Black's walk; hdl.image.walks.walk_tables)."""
    used = {ptype(c, p.code) for p in variant.pieces for c in (WHITE, BLACK)}
    for p in variant.pieces:
        if p.code != PAWN and parse_piece(p.moves).asymmetric:
            free = [t for t in range(N_TABLES) if t not in used]
            if not free:
                return (f"Black's {p.name} moves by colour and needs a table of its own: all "
                        f"{N_TABLES} are taken")
            used.add(free[0])
    return None


def chess_tables(variant: Variant) -> bool:
    """Does the variant's gateware hold chess's tables and promotions (Chess960's does: its
    castling comes with the position)? hdl.image.variant.hardware_name's rule."""
    return variant.layout == CHESS.layout and variant.promotions == CHESS.promotions


def chess_difference(variant: Variant) -> str | None:
    """The first rule in which the variant's game is not orthodox chess's, or None."""
    if variant.pieces != CHESS.pieces:
        return "its pieces"
    if variant.pawn != CHESS.pawn:
        return f"its pawn ({variant.pawn})"
    if variant.promotions != CHESS.promotions or variant.promotion_rank != CHESS.promotion_rank:
        return "its promotions"
    if variant.bare_king or variant.counting:
        return "its end of the game"
    if variant.chess960:
        return "its castling from any squares"
    return None


def chip_problem(variant: Variant) -> str | None:
    problem = table_problem(variant)
    if problem:
        return problem
    for p in variant.pieces:
        kind = variant.attack_kinds(WHITE, p.code)
        if kind & AttackKind.KING_STEP and p.code != KING:
            return f"its legality unit has no plane for the {p.name}'s king steps"
        if kind & AttackKind.WALKED:
            return (f"its legality unit has no plane for the {p.name}'s captures, which only "
                    f"its walk finds")
        if kind & ~CHIP_ATTACKS:
            kinds = (kind & ~CHIP_ATTACKS).name.lower().replace("_", " ").replace("|", ", ")
            return f"its legality unit has no plane for the {p.name}'s {kinds} attacks"
    return None


def _orthodox_only(why: str = ""):
    """A rule for a place built for orthodox chess: where the variant differs (and ``why`` the
    place is built so, where that is not the hardware's own limit)."""
    def problem(variant: Variant) -> str | None:
        differs = chess_difference(variant)
        if differs is None:
            return None
        return (f"{why}; " if why else "") + f"{variant.name} differs in {differs}"
    return problem


def _generator_verilator(variant: Variant) -> str | None:
    if not chess_tables(variant):  # (chess's tables fit the ROM)
        return "the Verilator model is built with chess's tables alone"
    return None


def _ecp5(variant: Variant) -> str | None:
    if variant.chess960:
        return "the board protocol carries no castling squares per position"
    return chip_problem(variant)


def _ice40(variant: Variant) -> str | None:
    if variant.chess960:
        return "the board protocol carries no castling squares per position"
    if not chess_tables(variant):
        return "its generator is built with chess's tables alone"
    return None


@dataclass(frozen=True)
class Capability:
    key: str    #: the table's column, and what refusals list as running a variant
    what: str   #: who refuses, in a message
    where: str  #: the commands that run there, for the table's legend
    problem: Callable[[Variant], str | None]  #: why it does not run there, or None

    @property
    def orthodox_only(self) -> bool:
        """Of the registered variants, does it play chess alone? (a refusal then says so)"""
        return all(self.problem(v) for v in VARIANTS if v is not CHESS)


CAPABILITIES = (
    Capability("sw", "the software reference",
               "moves, perft, search and uci in Python (--backend sw, tscp)",
               lambda variant: None),
    Capability("gen", "the gateware move generator",
               "on pysim or cxxrtl: moves --backend hw, sim, perft and compare --backend gen",
               table_problem),
    Capability("gen-verilator", "the generator's Verilator model",
               "the generator with --target verilator", _generator_verilator),
    Capability("hw", "the perft chip",
               "on pysim, cxxrtl or verilator: perft --backend hw or both, compare --backend hw",
               chip_problem),
    Capability("search", "the chip's search",
               "the host's plies over the search thread or its reference: search --backend "
               "sw, hw or both, UCI Backend sw or hw", _orthodox_only()),
    Capability("search-gen", "the search on the gateware generator",
               "search --backend gen, UCI Backend gen",
               _orthodox_only("the search drives the generator built for chess")),
    Capability("ecp5", "an ECP5 board's perft chip",
               "posdata synth --variant on an ECP5 board", _ecp5),
    Capability("ice40", "the iCEBreaker's board",
               "posdata synth --board icebreaker: the generator alone", _ice40),
    Capability("search-board", "the search board",
               "posdata synth --search: the search thread", _orthodox_only()),
    Capability("target-board", "the board (--target board)",
               "any board the host drives: --target board",
               _orthodox_only("the host does not check a board's variant yet")),
)
BY_KEY = {c.key: c for c in CAPABILITIES}


@cache
def runs_on(variant) -> tuple[str, ...]:
    """The keys of the places that run ``variant``, in the table's order."""
    variant = get_variant(variant)
    return tuple(c.key for c in CAPABILITIES if c.problem(variant) is None)


def refusal(variant, key: str, subject: str | None = None) -> str | None:
    """None where ``key`` runs ``variant``, else the one line that says so: who refuses
    (``subject``, default the place's name), why, and what does run the variant."""
    variant = get_variant(variant)
    if key in runs_on(variant):  # the usual case, cached: the search asks once per job
        return None
    place = BY_KEY[key]
    why = place.problem(variant)
    subject = subject or place.what
    head = (f"{subject} plays orthodox chess only, not {variant.name}" if place.orthodox_only
            else f"{subject} does not play {variant.name}")
    return (f"{head} ({why}); {variant.name} runs on {', '.join(runs_on(variant))} "
            f"(posdata variants)")

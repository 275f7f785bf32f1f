"""A match's games in PGN (Portable Game Notation's export format).

Each game has the seven tags (Event, Site, Date, Round, White, Black, Result), then SetUp and FEN
when it starts from a position of its own, Opening (the book line's name), Termination and
PlyCount. Termination says how it ended in PGN's words: ``normal`` (checkmate, stalemate,
threefold repetition, the fifty-move rule, insufficient material), ``adjudication`` (the ply
cap), ``illegal move``, ``abandoned`` (the engine's process ended) or ``stalled connection``
(no move in time), the last three as cutechess-cli writes them. The moves are in SAN, an engine's
move followed by its comment (score/depth and time, as cutechess-cli writes it), and the last
one by a comment saying why the game ended; lines are at most 79 characters.
"""

from ..rules.board import Board
from .game import CRASHED, ILLEGAL, STALLED, GameRecord
from .judge import PLY_CAP

TERMINATION = {PLY_CAP: "adjudication", ILLEGAL: "illegal move", CRASHED: "abandoned",
               STALLED: "stalled connection"}
LINE = 79


def tag(name: str, value: str) -> str:
    value = "".join(c if c.isprintable() else " " for c in value)
    return f'[{name} "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def ending(record: GameRecord) -> str:
    """The last comment: why the game ended."""
    if record.reason == PLY_CAP:
        side = {"1-0": "white", "0-1": "black"}.get(record.result)
        what = f"{side} wins on material" if side else "a draw on material"
        return f"ply cap: {what}"
    return record.reason + (f": {record.detail}" if record.detail else "")


def game_pgn(record: GameRecord, event: str = "posdata match", site: str = "?") -> str:
    start = Board(record.start_fen)  # its move number and side to move
    tags = [("Event", event), ("Site", site), ("Date", record.started or "????.??.??"),
            ("Round", str(record.index + 1)), ("White", record.white),
            ("Black", record.black), ("Result", record.result)]
    if record.start_fen:
        tags += [("SetUp", "1"), ("FEN", record.start_fen)]
    tags += [("Opening", record.opening.name),
             ("Termination", TERMINATION.get(record.reason, "normal")),
             ("PlyCount", str(len(record.moves)))]
    tokens = []
    number, black = start.start_fullmove, start.start_side == 1
    after_comment = True  # at the start a black move needs its "N..."
    for text, comment in zip(record.sans, record.comments):
        if not black:
            tokens.append(f"{number}.")
        elif after_comment:
            tokens.append(f"{number}...")
        tokens.append(text)
        after_comment = comment is not None
        if comment is not None:
            tokens.append(_comment(comment))
        if black:
            number += 1
        black = not black
    tokens += [_comment(ending(record)), record.result]
    return "\n".join(tag(k, v) for k, v in tags) + "\n\n" + "\n".join(_wrap(tokens)) + "\n"


def _comment(text: str) -> str:
    return "{" + " ".join(text.replace("}", ")").split()) + "}"


def _wrap(tokens: list[str]) -> list[str]:
    """Tokens into lines of at most LINE characters (a comment may be broken at its spaces)."""
    lines, line = [], ""
    for token in tokens:
        for word in _pieces(token):
            if line and len(line) + 1 + len(word) > LINE:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _pieces(token: str) -> list[str]:
    return token.split(" ") if token.startswith("{") else [token]


def match_pgn(records: list[GameRecord], event: str = "posdata match", site: str = "?") -> str:
    """Every game, in round order, a blank line between games."""
    return "\n".join(game_pgn(r, event, site) for r in sorted(records, key=lambda r: r.index))

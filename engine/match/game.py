"""One game of a match between two UCI engines, judged on the engine's own board.

Each engine is sent the whole game before each of its moves (``position startpos moves ...``,
or ``position fen ...``), so it sees the history a repetition needs. An engine that gives no
bestmove within its timeout loses the game as **stalled**, one whose process ends or whose pipes
close loses it as **crashed**, and one that answers with a move that is not legal here (or with
none) loses it as **illegal move**; in each case the game stops there. Otherwise the game goes
on until engine.match.judge ends it.
"""

import threading
import time
from dataclasses import dataclass, field

from ..rules.defs import WHITE
from ..rules.san import san, suffix
from .book import Opening
from .judge import BLACK_WINS, WHITE_WINS, Judge
from .spec import EngineSpec
from .uci_client import EngineDied, EngineStalled, UciClient

STALLED, CRASHED, ILLEGAL = "stalled", "crashed", "illegal move"
#: the reasons that are an engine's fault: it loses the game
FORFEITS = (STALLED, CRASHED, ILLEGAL)


@dataclass
class Player:
    name: str
    spec: EngineSpec
    client: UciClient


@dataclass
class GameRecord:
    index: int           #: 0-based, in the match's order (Round is index + 1)
    opening: Opening
    white: str           #: the engines' names
    black: str
    result: str = "*"    #: "1-0", "0-1" or "1/2-1/2"
    reason: str = ""     #: checkmate, ..., ply cap, stalled, crashed, illegal move
    detail: str = ""     #: what the reason leaves out: the illegal move, why a process ended
    loser: str | None = None  #: the engine that forfeited, for stalled, crashed, illegal move
    moves: list[str] = field(default_factory=list)     #: UCI, the opening's included
    sans: list[str] = field(default_factory=list)      #: the same in SAN
    comments: list[str | None] = field(default_factory=list)  #: per move; None for the book's
    book_plies: int = 0
    seconds: dict[str, float] = field(default_factory=dict)  #: thinking time per engine
    searched: dict[str, int] = field(default_factory=dict)   #: moves per engine
    start_fen: str | None = None  #: None: the initial position
    started: str = ""    #: the date the game began, YYYY.MM.DD

    def points(self, name: str) -> float:
        """What engine ``name`` scored: 1, 1/2 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        return float((self.result == WHITE_WINS) == (self.white == name))


def play_game(index: int, opening: Opening, white: Player, black: Player, ply_cap: int,
              abort: threading.Event | None = None) -> GameRecord:
    """Play the game (Aborted when ``abort`` is set); a forfeit's engine is left for the
    caller to restart (``record.loser``)."""
    board = opening.board()
    record = GameRecord(index, opening, white.name, black.name, start_fen=opening.fen,
                        started=time.strftime("%Y.%m.%d"))
    record.seconds = {white.name: 0.0, black.name: 0.0}
    record.searched = {white.name: 0, black.name: 0}
    judge = Judge(board, ply_cap)
    for word in opening.moves:
        record_move(record, judge, board.parse_uci(word), None)
    record.book_plies = len(opening.moves)
    start = f"position fen {opening.fen}" if opening.fen else "position startpos"
    for player in (white, black):
        try:
            player.client.new_game(abort)
        except (EngineStalled, EngineDied) as e:
            return _forfeit(record, player, white, e)
    while (verdict := judge.verdict()) is None:
        player = white if board.side == WHITE else black
        position = start + (" moves " + " ".join(record.moves) if record.moves else "")
        try:
            answer = player.client.go(position, player.spec.go(), player.spec.move_timeout(),
                                      abort)
        except (EngineStalled, EngineDied) as e:
            return _forfeit(record, player, white, e)
        record.seconds[player.name] += answer.seconds
        record.searched[player.name] += 1
        try:
            m = board.parse_uci(answer.move)
        except ValueError:
            record.result = BLACK_WINS if player is white else WHITE_WINS
            record.reason, record.loser = ILLEGAL, player.name
            said = repr(answer.move) if answer.move else "no move"
            record.detail = f"{player.name} played {said} in {board.fen()}"
            return record
        record_move(record, judge, m, _comment(answer))
    record.result, record.reason = verdict
    return record


def record_move(record: GameRecord, judge: Judge, m: int, comment: str | None) -> None:
    """Play ``m`` (one of ``judge.legal``) in the game and write it down: UCI, SAN, comment."""
    board = judge.board
    text = san(board, m, judge.legal)
    record.moves.append(board.uci(m))
    judge.push(m)
    record.sans.append(text + suffix(board, judge.legal))
    record.comments.append(comment)


def _forfeit(record: GameRecord, player: Player, white: Player, error) -> GameRecord:
    record.result = BLACK_WINS if player is white else WHITE_WINS
    record.reason = STALLED if isinstance(error, EngineStalled) else CRASHED
    record.loser = player.name
    record.detail = f"{player.name}: {error}"
    return record


def _comment(answer) -> str:
    """cutechess-cli's move comment: the engine's score in pawns from its own side, the depth,
    the time: ``+0.25/12 0.51s``, ``+M3/9 0.20s``."""
    parts = []
    if answer.score is not None:
        kind, _, value = answer.score.partition(" ")
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is not None:
            text = (f"{number / 100:+.2f}" if kind == "cp" else
                    ("+M" if number > 0 else "-M") + str(abs(number)))
            parts.append(text + (f"/{answer.depth}" if answer.depth is not None else ""))
    parts.append(f"{answer.seconds:.2f}s")
    return " ".join(parts)

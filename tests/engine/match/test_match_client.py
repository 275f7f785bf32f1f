"""The match's UCI client and one game (engine.match.uci_client, engine.match.game) with a fake
engine (tests/engine/match/fake_uci_engine.py): the handshake and its options, the history sent
before every move, and each way an engine loses a game: an illegal move, no move in time, a
crash."""

import sys
import threading
import time
from pathlib import Path

import pytest

from posdata.engine.match.book import Opening
from posdata.engine.match.game import CRASHED, ILLEGAL, STALLED, Player, play_game
from posdata.engine.match.spec import parse_engine
from posdata.engine.match.uci_client import (
    Aborted,
    EngineDied,
    EngineStalled,
    EngineStartError,
    UciClient,
    _info,
    parse_option,
)

pytest.importorskip("chess")  # the fake engine's moves

FAKE = Path(__file__).with_name("fake_uci_engine.py")
OPENING = Opening("Ruy Lopez", ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"))


def fake(*flags: str) -> list[str]:
    return [sys.executable, str(FAKE), *flags]


@pytest.fixture
def clients():
    """Clients started by a test, closed after it whatever happens."""
    made = []

    def make(argv, label="engine 1", quit_s=1.0):
        client = UciClient(argv, label=label, quit_s=quit_s)
        made.append(client)
        client.start()
        return client
    yield make
    for client in made:
        client.close()


def test_option_lines():
    o = parse_option("option name Skill Level type spin default 20 min 0 max 20")
    assert (o.name, o.type, o.default, o.min, o.max) == ("Skill Level", "spin", "20", 0, 20)
    o = parse_option("option name Style type combo default Normal var Solid var Normal var Risky")
    assert (o.vars, o.checked("risky")) == (["Solid", "Normal", "Risky"], "Risky")
    o = parse_option("option name Book File type string default <empty>")
    assert (o.name, o.default, o.checked("my book.bin")) == ("Book File", "<empty>",
                                                             "my book.bin")
    assert parse_option("option name type spin") is None  # no name
    assert parse_option("option name Clear Hash type button").type == "button"
    with pytest.raises(ValueError, match="an integer from 0 to 20"):
        parse_option("option name S type spin default 1 min 0 max 20").checked("21")
    with pytest.raises(ValueError, match="true or false"):
        parse_option("option name P type check default false").checked("yes")


def test_the_handshake_sets_the_options_as_the_engine_spells_them(clients, tmp_path):
    log = tmp_path / "log.txt"
    client = clients(fake("--options", "--name", "Fake Engine 1.0", "--log", str(log)))
    said = client.handshake({"hash": "64", "Style": "risky", "Ponder": "TRUE",
                             "Clear Hash": "", "Book File": "my book.bin"})
    assert said == [] and client.id_name == "Fake Engine 1.0"
    assert set(client.options) == {"hash", "style", "ponder", "clear hash", "skill level",
                                   "book file"}
    lines = log.read_text().splitlines()
    assert lines == ["uci", "setoption name Hash value 64", "setoption name Style value Risky",
                     "setoption name Ponder value true", "setoption name Clear Hash",
                     "setoption name Book File value my book.bin", "isready"]


@pytest.mark.parametrize("options, error", [
    ({"Threads": "2"}, "engine 1 has no option 'Threads' (it offers: Hash, Style, Ponder"),
    ({"Hash": "0"}, "engine 1: option Hash takes an integer from 1 to 1024, not '0'"),
    ({"Style": "wild"}, "option Style takes one of Solid, Normal, Risky, not 'wild'"),
])
def test_an_option_the_engine_does_not_take_is_refused(clients, options, error):
    client = clients(fake("--options"))
    with pytest.raises(EngineStartError) as e:
        client.handshake(options)
    assert error in str(e.value)


def test_a_refusal_in_info_strings_is_returned(clients):
    client = clients(fake("--options", "--refuse-options"))
    assert client.handshake({"Hash": "8"}) == ["setoption refused: name Hash value 8"]


def test_an_engine_that_cannot_start_or_never_answers(clients, tmp_path):
    with pytest.raises(EngineStartError, match="cannot start '/nonexistent/engine': No such"):
        clients(["/nonexistent/engine"])
    client = clients(fake("--no-uciok"))
    start = time.monotonic()
    with pytest.raises(EngineStartError, match="engine 1: no uciok during the uci handshake"):
        client.handshake({}, uciok_s=0.5)
    # idle 0.50 s, as under load (the client's deadline is the wall clock's); ten times that
    # is far below the default UCIOK_S (60 s) that an ignored uciok_s would wait
    assert time.monotonic() - start < 5
    quits = clients([sys.executable, "-c", "print('id name x')"])
    with pytest.raises(EngineStartError, match="exited with status 0 during the uci handshake"):
        quits.handshake({})


def test_go_reads_the_last_score_and_the_move(clients):
    client = clients(fake())
    client.handshake({})
    answer = client.go("position startpos moves e2e4", "go depth 1", 10)
    assert len(answer.move) == 4 and answer.depth == 1 and answer.score.startswith("cp ")


def test_info_lines_keep_what_they_cannot_read():
    assert _info("info depth 7 seldepth 9 score cp -31 pv e2e4".split(), None, None) == \
        (7, "cp -31")
    # a non-ASCII digit ('²'.isdigit() is true) and a line cut short keep the last values
    assert _info("info depth \u00b2 score mate".split(), 3, "cp 5") == (3, "cp 5")
    assert _info("info string depth 9".split(), 3, "cp 5") == (3, "cp 5")


def test_a_stalled_or_dead_engine_and_an_abort(clients):
    silent = clients(fake("--silent-at", "1"))
    silent.handshake({})
    start = time.monotonic()
    with pytest.raises(EngineStalled, match="no bestmove within 0.4 s"):
        silent.go("position startpos", "go depth 1", 0.4)
    # it waited the 0.4 s it was told, and not much more (idle 0.40 s, as under load: ten
    # times that catches a deadline far longer than asked)
    assert 0.4 <= time.monotonic() - start < 4
    abort = threading.Event()
    threading.Timer(0.3, abort.set).start()
    silent_again = clients(fake("--silent-at", "1"))
    silent_again.handshake({})
    with pytest.raises(Aborted):  # not EngineStalled, 60 s on: the abort is looked at
        silent_again.go("position startpos", "go depth 1", 60, abort)
    crash = clients(fake("--crash-at", "1"))
    crash.handshake({})
    with pytest.raises(EngineDied, match=r"exited with status 3 \(fake engine: crashing as "):
        crash.go("position startpos", "go depth 1", 10)  # 10 s: a hang guard (idle: ms)
    assert not crash.alive
    with pytest.raises(EngineDied):  # and it stays dead
        crash.go("position startpos", "go depth 1", 10)


def test_close_stops_an_engine_that_ignores_quit_and_sigterm(clients):
    stubborn = clients([sys.executable, "-c", "import signal, time\n"
                        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                        "print('ready', flush=True)\ntime.sleep(60)\n"], quit_s=0.3)
    stubborn.wait_for("ready", 10)  # a hang guard: idle ~0.05 s
    process = stubborn.process
    start = time.monotonic()
    stubborn.close()
    # quit, TERM, KILL: quit and TERM each given their 0.3 s (idle 0.61 s in all, as under
    # load); ten times that is far below the child's 60 s, that a close without KILL waits
    assert process.poll() == -9 and 0.6 <= time.monotonic() - start < 6


# ---- one game ------------------------------------------------------------------------------

def players(clients, first: list[str], second: list[str], each=("depth=1",)):
    out = []
    for k, flags in enumerate((first, second)):
        spec = parse_engine([f"cmd={sys.executable} {FAKE}", *each], [], f"--engine {k + 1}")
        client = clients(fake(*flags), f"engine {k + 1}")
        client.handshake({})
        out.append(Player(f"fake {k + 1}", spec, client))
    return out


def test_a_game_sends_the_whole_history_and_ends_by_the_rules(clients, tmp_path):
    log = tmp_path / "white.txt"
    white, black = players(clients, ["--seed", "4", "--log", str(log)], ["--seed", "5"])
    record = play_game(3, OPENING, white, black, ply_cap=30)
    assert (record.index, record.white, record.black, record.book_plies) == (
        3, "fake 1", "fake 2", 6)
    assert record.moves[:6] == list(OPENING.moves) and len(record.moves) <= 30
    assert record.reason and record.result in ("1-0", "0-1", "1/2-1/2") and not record.loser
    assert record.searched["fake 1"] + record.searched["fake 2"] == len(record.moves) - 6
    assert record.comments[:6] == [None] * 6 and record.comments[6].startswith(("+", "-"))
    sent = [line for line in log.read_text().splitlines() if line.startswith("position")]
    assert sent[0] == "position startpos moves " + " ".join(OPENING.moves)
    assert sent[-1] == "position startpos moves " + " ".join(
        record.moves[:len(record.moves) - (1 if len(record.moves) % 2 else 2)])
    assert log.read_text().splitlines()[:4] == ["uci", "isready", "ucinewgame", "isready"]


@pytest.mark.parametrize("flags, reason, detail", [
    (["--illegal-at", "2"], ILLEGAL, "fake 2 played 'a1a1' in "),
    (["--silent-at", "2"], STALLED, "fake 2: no bestmove within 0.5 s"),
    (["--crash-at", "2"], CRASHED, "fake 2: exited with status 3 (fake engine: crashing"),
])
def test_an_engine_that_misbehaves_loses_the_game(clients, flags, reason, detail):
    # timeout=0.5 is also the well-behaved engine's: idle it answers a go within ~1 ms
    white, black = players(clients, ["--seed", "1"], flags, each=("depth=1", "timeout=0.5"))
    record = play_game(0, OPENING, white, black, ply_cap=100)
    assert (record.result, record.reason, record.loser) == ("1-0", reason, "fake 2")
    assert record.detail.startswith(detail), record.detail
    assert len(record.moves) == 6 + 3  # white, black, white, then black's second move fails

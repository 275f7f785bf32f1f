"""The match's side of the UCI protocol: one engine process, started, configured, asked for
moves and stopped.

The engine runs in a process group of its own, so a Ctrl-C at the terminal reaches the match
alone, which then stops its engines itself. Its output is read by a thread into a queue, and
every wait for an answer has a deadline and looks at an abort event every POLL_S: an engine
that says nothing cannot hold the match. What the engine writes on stderr is kept (the last
lines) to say why it died.

Errors: EngineStartError (it cannot be started or configured: the match cannot be played),
EngineDied (it exited or closed its pipes), EngineStalled (no answer before the deadline), and
Aborted (the match is stopping).
"""

import collections
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field

POLL_S = 0.1  #: how often a wait looks at the abort event
UCIOK_S = 60.0  #: from start to uciok
READY_S = 900.0  #: from the options to readyok (posdata's Backend hw compiles a model first)
NEWGAME_S = 60.0  #: from ucinewgame to readyok
QUIT_S = 1.0  #: how long an engine is given to leave after quit, then after SIGTERM
STDERR_LINES = 5  #: the engine's last stderr lines kept for an error message


class EngineError(Exception):
    pass


class EngineStartError(EngineError):
    """The engine cannot be started, or refuses the handshake or an option."""


class EngineDied(EngineError):
    pass


class EngineStalled(EngineError):
    pass


class Aborted(Exception):
    """The match is stopping (an SPRT decision, an error elsewhere, Ctrl-C)."""


@dataclass
class Option:
    """One ``option name ... type ...`` line of the engine's uci answer."""
    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: list[str] = field(default_factory=list)

    def checked(self, value: str) -> str:
        """``value`` as the option takes it (a combo's value in the engine's spelling);
        ValueError saying what it takes."""
        if self.type == "check":
            if value.lower() not in ("true", "false"):
                raise ValueError("true or false")
            return value.lower()
        if self.type == "spin":
            try:
                number = int(value)
            except ValueError:
                number = None
            low = self.min if self.min is not None else -2**63
            high = self.max if self.max is not None else 2**63 - 1
            if number is None or not low <= number <= high:
                raise ValueError(f"an integer from {low} to {high}")
            return str(number)
        if self.type == "combo":
            for var in self.vars:
                if var.lower() == value.lower():
                    return var
            raise ValueError("one of " + ", ".join(self.vars))
        return value  # string, button


_OPTION_KEYS = {"name", "type", "default", "min", "max", "var"}


def parse_option(line: str) -> Option | None:
    """An ``option`` line; None if it is malformed. Names and values may hold spaces (a name
    ends at ``type``)."""
    fields: list[tuple[str, list[str]]] = []
    for word in line.split()[1:]:
        if word in _OPTION_KEYS and not (fields and fields[-1][0] == "name" and word != "type"):
            fields.append((word, []))
        elif fields:
            fields[-1][1].append(word)
    values: dict[str, str] = {}
    option_vars = []
    for key, parts in fields:
        if key == "var":
            option_vars.append(" ".join(parts))
        else:
            values.setdefault(key, " ".join(parts))
    if not values.get("name") or not values.get("type"):
        return None
    try:
        low = int(values["min"]) if "min" in values else None
        high = int(values["max"]) if "max" in values else None
    except ValueError:
        low = high = None
    return Option(values["name"], values["type"].lower(), values.get("default"), low, high,
                  option_vars)


@dataclass
class Answer:
    """A ``go``'s answer: the move word (as the engine wrote it), the time it took, and the
    last depth and score (``cp N`` or ``mate N``, the engine's view) it reported."""
    move: str
    seconds: float
    depth: int | None = None
    score: str | None = None


class UciClient:
    """One engine process. ``argv`` is its command line, ``cwd`` its working directory;
    ``label`` names it in messages (``engine 1 (stockfish)``); ``quit_s`` is how long it is
    given to leave after quit, then after SIGTERM."""

    def __init__(self, argv: list[str], cwd: str | None = None, label: str = "engine",
                 quit_s: float = QUIT_S):
        self.argv, self.cwd, self.label, self.quit_s = list(argv), cwd, label, quit_s
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.stderr_tail: collections.deque = collections.deque(maxlen=STDERR_LINES)
        self.id_name: str | None = None
        self.options: dict[str, Option] = {}  #: by lower-case name
        self.threads: list[threading.Thread] = []

    # --- the process -----------------------------------------------------------------------

    def start(self) -> None:
        try:
            self.process = subprocess.Popen(
                self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                bufsize=1, process_group=0)
        except (OSError, ValueError) as e:
            why = getattr(e, "strerror", None) or str(e)
            raise EngineStartError(f"{self.label}: cannot start {' '.join(self.argv)!r}: "
                                   f"{why}") from None
        self.lines = queue.Queue()
        self.threads = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        try:
            for line in stream:
                self.lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self.lines.put(None)  # the end of its output

    def _read_stderr(self) -> None:
        try:
            for line in self.process.stderr:
                if line.strip():
                    self.stderr_tail.append(line.strip()[:200])
        except (OSError, ValueError):
            pass

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            raise EngineDied(self._death()) from None

    def _death(self) -> str:
        """Why the engine is gone: its exit status and the last thing it said on stderr."""
        status = None
        if self.process is not None:
            try:
                status = self.process.wait(timeout=self.quit_s)
            except subprocess.TimeoutExpired:
                pass
        what = ("closed its output" if status is None else
                f"exited with status {status}" if status >= 0 else f"killed by signal {-status}")
        if self.stderr_tail:
            what += f" ({self.stderr_tail[-1]})"
        return what

    def close(self) -> None:
        """quit, then SIGTERM, then SIGKILL, each given ``quit_s``."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            try:
                self.send("quit")
            except EngineDied:
                pass
            for stop in (None, process.terminate, process.kill):
                if stop is not None:
                    try:
                        stop()
                    except OSError:
                        pass
                try:
                    process.wait(timeout=self.quit_s)
                    break
                except subprocess.TimeoutExpired:
                    continue
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        for thread in self.threads:
            thread.join(self.quit_s)
        self.process = None

    # --- waiting for lines -----------------------------------------------------------------

    def read_line(self, deadline: float, abort: threading.Event | None, waiting_for: str) -> str:
        """The engine's next line; EngineStalled past ``deadline`` (time.monotonic()),
        EngineDied at the end of its output, Aborted when ``abort`` is set."""
        while True:
            if abort is not None and abort.is_set():
                raise Aborted()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineStalled(f"no {waiting_for}")
            try:
                line = self.lines.get(timeout=min(remaining, POLL_S))
            except queue.Empty:
                continue
            if line is None:
                self.lines.put(None)  # the next reader is told too
                raise EngineDied(self._death())
            return line

    def wait_for(self, word: str, seconds: float, abort=None) -> list[str]:
        """The lines up to the first whose first word is ``word`` (included)."""
        deadline = time.monotonic() + seconds
        seen = []
        while True:
            line = self.read_line(deadline, abort, word)
            seen.append(line)
            if line.split()[:1] == [word]:
                return seen

    # --- the protocol ----------------------------------------------------------------------

    def handshake(self, options: dict[str, str], abort=None, uciok_s: float = UCIOK_S,
                  ready_s: float = READY_S) -> list[str]:
        """uci (its id and options read), setoption for each of ``options`` (checked against
        what the engine offers), isready. Returns the ``info string`` lines the engine sent
        after the options (an engine's way to refuse one). EngineStartError for anything
        wrong, the engine's death or silence included."""
        try:
            self.send("uci")
            for line in self.wait_for("uciok", uciok_s, abort):
                words = line.split()
                if words[:2] == ["id", "name"] and len(words) > 2:
                    self.id_name = " ".join(words[2:])
                elif words[:1] == ["option"]:
                    option = parse_option(line)
                    if option is not None:
                        self.options[option.name.lower()] = option
            for name, value in options.items():
                self.send(self.setoption_line(name, value))
            self.send("isready")
            said = self.wait_for("readyok", ready_s, abort)
        except (EngineDied, EngineStalled) as e:
            raise EngineStartError(f"{self.label}: {e} during the uci handshake") from None
        return [" ".join(line.split()[2:]) for line in said
                if line.split()[:2] == ["info", "string"]]

    def setoption_line(self, name: str, value: str) -> str:
        option = self.options.get(name.lower())
        if option is None:
            offered = ", ".join(o.name for o in self.options.values()) or "none"
            raise EngineStartError(f"{self.label} has no option {name!r} (it offers: "
                                   f"{offered})")
        if option.type == "button":
            return f"setoption name {option.name}"
        try:
            value = option.checked(value)
        except ValueError as e:
            raise EngineStartError(f"{self.label}: option {option.name} takes {e}, not "
                                   f"{value!r}") from None
        return f"setoption name {option.name} value {value}"

    def new_game(self, abort=None, seconds: float = NEWGAME_S) -> None:
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok", seconds, abort)

    def go(self, position: str, go: str, seconds: float, abort=None) -> Answer:
        """``position`` and ``go`` sent, the answer read: EngineStalled when no bestmove comes
        within ``seconds``."""
        self.send(position)
        self.send(go)
        start = time.monotonic()
        deadline = start + seconds
        depth = score = None
        while True:
            try:
                line = self.read_line(deadline, abort, "bestmove")
            except EngineStalled:
                raise EngineStalled(f"no bestmove within {seconds:g} s") from None
            words = line.split()
            if words[:1] == ["info"]:
                depth, score = _info(words, depth, score)
            elif words[:1] == ["bestmove"]:
                return Answer(words[1] if len(words) > 1 else "", time.monotonic() - start,
                              depth, score)


def _info(words: list[str], depth, score):
    """The depth and score of an info line, where it has them (else the last ones)."""
    if words[1:2] == ["string"]:
        return depth, score
    for i, word in enumerate(words[:-1]):
        if word == "depth" and words[i + 1].isascii() and words[i + 1].isdigit():
            depth = int(words[i + 1])
        elif word == "score" and i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
            score = f"{words[i + 1]} {words[i + 2]}"
    return depth, score


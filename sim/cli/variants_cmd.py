"""posdata variants: the variants, each with its pieces' definitions (engine.rules.pieces'
notation), its promotions and what runs it (engine.rules.capabilities, the one declaration: the
table here is docs/variants.md's)."""

import json

from posdata.engine.rules.capabilities import CAPABILITIES, runs_on
from posdata.engine.rules.variants import VARIANTS

from .common import add_json_arg
from .variants_table import text


def register(sub) -> None:
    p = sub.add_parser(
        "variants", help="list the variants with their pieces' definitions",
        description="List the variants (Fairy-Stockfish's names) with each piece's FEN letter, "
                    "name and definition in Betza's notation as engine.rules.pieces reads it (m "
                    "move only, c capture only, n lame, p hop a screen, g grasshopper, f b l r s v "
                    "directions, a number a range), the promotions and what runs it: the "
                    "software (sw), the gateware generator (gen), the perft chip (hw), the "
                    "chip's search, the boards; a table of them all closes the list.")
    add_json_arg(p)
    p.set_defaults(run=run)


def describe() -> list[dict]:
    out = []
    for v in VARIANTS:
        pieces = [{"letter": v.letter(0, p.code), "name": p.name, "code": p.code,
                   "moves": p.moves if p.moves else (v.pawn or "orthodox pawn")}
                  for p in v.pieces]
        out.append({
            "name": v.name, "fsf_name": v.fsf_name, "description": v.description,
            "pieces": pieces,
            "promotions": [[v.letter(side, code) for code in v.promotions[side]]
                           for side in (0, 1)],
            "runs_on": list(runs_on(v)),
            "start_fen": v.start_fen})
    return out


def run(args) -> int:
    rows = describe()
    if args.json:
        places = [{"key": c.key, "what": c.what, "where": c.where} for c in CAPABILITIES]
        print(json.dumps({"variants": rows, "places": places}))
        return 0
    for r in rows:
        alias = f" (Fairy-Stockfish: {r['fsf_name']})" if r["fsf_name"] != r["name"] else ""
        print(f"{r['name']}{alias}: {r['description']}")
        print("  pieces:     " + ", ".join(f"{p['letter']} {p['name']} {p['moves']}"
                                             for p in r["pieces"]))
        white, black = ("".join(side) for side in r["promotions"])
        print(f"  promotions: {white} / {black};  runs on: {' '.join(r['runs_on'])}")
    print()
    print("\n".join(text()))
    return 0

"""posdata variants: the variants, each with its pieces' definitions (engine.pieces' notation),
its promotions and what runs it: the software reference every variant, the gateware generator
those whose pieces walk Sandström's tables, the perft chip those its legality unit can test."""

import json

from posdata.engine.variants import VARIANTS

from .common import add_json_arg


def register(sub) -> None:
    p = sub.add_parser(
        "variants", help="list the variants with their pieces' definitions",
        description="List the variants (Fairy-Stockfish's names) with each piece's FEN letter, "
                    "name and definition in Betza's notation as engine.pieces reads it (m move "
                    "only, c capture only, n lame, p hop a screen, g grasshopper, f b l r s v "
                    "directions, a number a range), the promotions and the backends that play "
                    "it: sw (every variant), gen (the gateware generator: Sandström's tables, "
                    "no modes yet), hw (the perft chip: pieces its legality unit can test).")
    add_json_arg(p)
    p.set_defaults(run=run)


def describe() -> list[dict]:
    from posdata.hdl.chip.chessboard import UnsupportedVariant, plane_codes
    out = []
    for v in VARIANTS:
        try:
            plane_codes(v)
            chip = True
        except UnsupportedVariant:
            chip = False
        pieces = [{"letter": v.letter(0, p.code), "name": p.name, "code": p.code,
                   "moves": p.moves if p.moves else (v.pawn or "orthodox pawn")}
                  for p in v.pieces]
        out.append({
            "name": v.name, "fsf_name": v.fsf_name, "description": v.description,
            "pieces": pieces,
            "promotions": [[v.letter(side, code) for code in v.promotions[side]]
                           for side in (0, 1)],
            "backends": ["sw", "gen"] + (["hw"] if chip else []),
            "start_fen": v.start_fen})
    return out


def run(args) -> int:
    rows = describe()
    if args.json:
        print(json.dumps({"variants": rows}))
        return 0
    for r in rows:
        alias = f" (Fairy-Stockfish: {r['fsf_name']})" if r["fsf_name"] != r["name"] else ""
        print(f"{r['name']}{alias}: {r['description']}")
        print("  pieces:     " + ", ".join(f"{p['letter']} {p['name']} {p['moves']}"
                                             for p in r["pieces"]))
        white, black = ("".join(side) for side in r["promotions"])
        print(f"  promotions: {white} / {black};  backends: {' '.join(r['backends'])}")
    return 0

"""posdata uci: the UCI engine on stdin/stdout, for chess GUIs (same as ``python -m engine``)."""


def register(sub) -> None:
    p = sub.add_parser(
        "uci", help="run as a UCI engine on stdin/stdout (for chess GUIs)",
        description="Speak the Universal Chess Interface on stdin/stdout. Same engine as "
                    "`python -m engine`. Option MoveGen (sw|hw) picks the move generator.")
    p.set_defaults(run=run)


def run(args) -> int:
    from engine.uci import main  # only this command needs it
    return main()

"""A FEN's placement as square -> piece letter, for tests that compare boards with pyffish's."""


def board_of(fen: str) -> dict[str, str]:
    out = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                out["abcdefgh"[file] + str(8 - i)] = ch
                file += 1
    return out

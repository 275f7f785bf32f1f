"""The UCI engine's input: one line at a time, bounded whatever the GUI sends."""

#: the longest input line read; a longer one is skipped whole. A position command of the longest
#: game the 75-move rule allows (8,848 plies) is about 45 KB.
MAX_LINE_BYTES = 1 << 18

#: read_line's answer for a line over MAX_LINE_BYTES
TOO_LONG = object()


def read_line(stream):
    """The next line of ``stream`` (bytes decoded as UTF-8, bad bytes replaced), None at the end
    of input, or TOO_LONG for a line over MAX_LINE_BYTES, which is read to its end and
    dropped (memory stays bounded whatever the GUI sends)."""
    try:
        raw = stream.readline(MAX_LINE_BYTES + 1)
    except (OSError, ValueError):  # stdin closed under us: as the end of input
        return None
    if not raw:
        return None
    newline = b"\n" if isinstance(raw, bytes) else "\n"
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(newline):
        while True:
            try:
                more = stream.readline(1 << 16)
            except (OSError, ValueError):
                return None
            if not more or more.endswith(newline):
                return TOO_LONG
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw

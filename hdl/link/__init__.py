"""The link to the host: the board protocol (plain Python, shared with the host), the UART,
frames with their CRC and verdict, and the front ends that put the chip, the generator or the
search threads behind them: each a board's commands on one ``CommandShell``
(``command_shell``: the ``HostLink`` of ``link``, ``cursor``, ``arguments``,
``position_writer``, ``reply_shifter``), with the chip's ``count_control`` and
``listing_buffer``, the generator's ``two_pass_listing``, the search board's
``search_threads``."""

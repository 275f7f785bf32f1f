"""The link to the host: the board protocol (plain Python, shared with the host), the UART,
frames with their CRC and verdict, and the front ends that put the chip or the generator behind
them: both on one ``HostLink`` (``link``), built of parts (``cursor``, ``arguments``,
``position_writer``, ``reply_shifter``; the chip's ``count_control`` and ``listing_buffer``, the
generator's ``two_pass_listing``)."""

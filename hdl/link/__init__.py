"""The link to the host: the board protocol (plain Python, shared with the host), the UART,
frames with their CRC, and the front ends that put the chip or the generator behind them."""

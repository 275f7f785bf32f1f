"""What a board (real, simulated or a model) answers a command with, for the protocol tests of
every front end."""

from posdata.hdl.link.protocol import ENGINE_ALL
from posdata.sim.drivers.fpga_board import BoardRefused


def refused(client, cmd, payload=b"", engine=ENGINE_ALL):
    """The error code the board answers a command with (None: OK)."""
    try:
        client.command(cmd, payload, engine)
    except BoardRefused as e:
        return e.code
    return None

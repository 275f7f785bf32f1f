"""A simulation run with a hang guard that ends as soon as the testbenches do (``run_until``
would run the clock on to its deadline)."""

PERIOD = 1e-6


def run_guarded(sim, clocks: int) -> None:
    """Run ``sim`` (its clock of PERIOD added here) until its testbenches finish, or for about
    ``clocks`` clocks: a hung testbench ends there instead of hanging the run. The caller
    checks that its testbench finished."""
    sim.add_clock(PERIOD)
    steps = 0
    while sim.advance() and steps < 2 * clocks:  # two steps a clock: its rising, falling edge
        steps += 1

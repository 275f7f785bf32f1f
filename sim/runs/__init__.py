"""Runs and campaigns: perft with the generator in the loop or on the chip, perft suites,
random cross-check campaigns, the Dask pool that spreads them, and the chip's projections."""

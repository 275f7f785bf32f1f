"""Amaranth 0.5 gateware of the posdata move generator."""

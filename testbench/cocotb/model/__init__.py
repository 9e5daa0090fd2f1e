"""Pure-Python reference models for the cocotb benches (no cocotb import: usable from pytest too)."""

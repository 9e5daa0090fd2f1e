"""cocotb-side helpers shared by the benches (clock, reset, counter pulses, stream drivers)."""

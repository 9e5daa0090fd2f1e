#!/usr/bin/env python3
"""Logic levels of a mapped UltraScale+ netlist (Yosys `write_json` after the xcup flow), counted as Vivado
counts them: a LUT, a MUXF7/F8 and a CARRY8 are one level each. Yosys 0.23 maps carry logic to CARRY4
cells, half a CARRY8, so a CARRY4 counts half a level (a run of them rounds up). Flip-flops, block RAMs,
DSPs, the module's ports and constants start and end a path.

Yosys's `ltp` counts every cell on the path as one, a CARRY4 as much as a LUT, so a 64-bit adder alone
reads 16 there against 8 CARRY8 levels here; and it picks its longest path by that count, which is not
always the path with the most levels. This walks every path with the weights above instead.

usage: levels.py NETLIST.json   prints: levels luts muxf carry4 from to   (one line)
       levels.py --path NETLIST.json   also lists the path's cells, start to end, with the nets they drive
       levels.py --self-test     checks the count on a small netlist built here (depth.sh runs it first)
"""
import json
import math
import sys

# Combinational cells and their weight in half levels (an INV is a LUT1 on the device).
WEIGHT = {f"LUT{k}": 2 for k in range(1, 7)}
WEIGHT.update({"INV": 2, "MUXF7": 2, "MUXF8": 2, "MUXF9": 2, "CARRY8": 2, "CARRY4": 1})


def main(path, trace=None):
    with open(path) as f:
        design = json.load(f)
    return longest(design, trace)


def longest(design, trace=None):
    mods = design["modules"]
    top = next(
        (n for n, m in mods.items() if m.get("attributes", {}).get("top")), None
    ) or next(iter(mods))
    mod = mods[top]
    # A readable name per net bit: the shortest user name (no `$`) that carries it.
    names = {}
    for name, net in mod["netnames"].items():
        for i, b in enumerate(net["bits"]):
            if isinstance(b, str):
                continue
            label = name if len(net["bits"]) == 1 else f"{name}[{i}]"
            old = names.get(b)
            user = not name.startswith("$")
            if old is None or (user and (old.startswith("$") or len(label) < len(old))):
                names[b] = label
    # The combinational cell driving each bit, and each such cell's input bits.
    driver = {}
    cells = {}
    for cname, c in mod["cells"].items():
        w = WEIGHT.get(c["type"])
        if w is None:
            continue
        dirs = c.get("port_directions")
        if not dirs:
            sys.exit(f"levels.py: no port directions for {c['type']} (read the cell library first)")
        ins = []
        for port, bits in c["connections"].items():
            if dirs[port] == "output":
                for b in bits:
                    if not isinstance(b, str):
                        driver[b] = cname
            else:
                ins += [b for b in bits if not isinstance(b, str)]
        cells[cname] = (c["type"], w, ins)
    # Longest arrival per cell (in half levels), with the input bit it came through.
    arrival = {}
    via = {}
    sys.setrecursionlimit(1_000_000)
    state = {}

    def visit(cname):
        if cname in arrival:
            return arrival[cname]
        if state.get(cname) == "open":
            sys.exit(f"levels.py: combinational loop through {cname}")
        state[cname] = "open"
        _, w, ins = cells[cname]
        best, best_bit = 0, None
        for b in ins:
            d = driver.get(b)
            a = visit(d) if d is not None else 0
            if a > best or best_bit is None:
                best, best_bit = a, b
        arrival[cname] = best + w
        via[cname] = best_bit
        state[cname] = "done"
        return arrival[cname]

    for cname in cells:
        visit(cname)
    if not arrival:
        return (0, 0, 0, 0, "-", "-")
    end = max(arrival, key=lambda c: arrival[c])
    # Walk back, counting the path's cells by kind, and round each run of CARRY4s up to whole CARRY8s.
    kinds = {"lut": 0, "muxf": 0, "carry4": 0}
    levels2 = 0
    run = 0
    cname, start_bit = end, None
    out_bits = [
        b
        for port, bits in mod["cells"][end]["connections"].items()
        if mod["cells"][end]["port_directions"][port] == "output"
        for b in bits
        if not isinstance(b, str)
    ]
    while cname is not None:
        t = cells[cname][0]
        if trace is not None:
            trace.append((t, cname, via[cname]))
        if t == "CARRY4":
            kinds["carry4"] += 1
            run += 1
        else:
            levels2 += 2 * math.ceil(run / 2) + 2
            run = 0
            kinds["muxf" if t.startswith("MUXF") else "lut"] += 1
        start_bit = via[cname]
        cname = driver.get(start_bit)
    levels2 += 2 * math.ceil(run / 2)
    # Name the path's ends by the register (or port) they leave and reach where the net itself has only
    # a generated name: the flip-flop fed by the last cell, by its output.
    def named(b):
        n = names.get(b)
        return n if n is not None and not n.startswith("$") else None

    # A start bit without a name of its own: the cell that drives it (a flip-flop, a RAM's read port, a
    # constant) by its type and name, or the unit's port.
    frm = named(start_bit)
    if frm is None:
        for cn, c in mod["cells"].items():
            dirs = c.get("port_directions", {})
            if any(
                dirs.get(port) == "output" and start_bit in bits
                for port, bits in c["connections"].items()
            ):
                if c["type"] in ("IBUF", "IBUFG"):
                    frm = named(c["connections"]["I"][0])
                else:
                    frm = f"{c['type']}:{cn}" if not cn.startswith("$") else c["type"]
                break
    if frm is None:
        for pn, pt in mod.get("ports", {}).items():
            if start_bit in pt["bits"]:
                frm = f"{pn}[{pt['bits'].index(start_bit)}]"
                break
    frm = frm or names.get(start_bit, str(start_bit))
    to = None
    for b in out_bits:
        to = named(b)
        if to:
            break
        for c in mod["cells"].values():
            if c["type"] in WEIGHT:
                continue
            conns, dirs = c["connections"], c.get("port_directions", {})
            if any(b in bits for port, bits in conns.items() if dirs.get(port) == "input"):
                for port, bits in conns.items():
                    if dirs.get(port) == "output":
                        for q in bits:
                            to = to or named(q)
        if to:
            break
    to = to or (names.get(out_bits[0], str(out_bits[0])) if out_bits else "-")
    return (
        levels2 // 2,
        kinds["lut"],
        kinds["muxf"],
        kinds["carry4"],
        frm.replace(" ", "_"),
        to.replace(" ", "_"),
    )


def self_test():
    """Register a -> LUT -> LUT -> 3 chained CARRY4s -> MUXF7 -> register q, beside a shorter path of
    four LUTs from port b: the first has 2 LUT + 2 (three CARRY4s round up to two CARRY8s) + 1 MUXF7 =
    5 levels, though the second has more LUTs than the first's two."""
    cells = {}
    nets = {"a": [1], "q": [20], "b": [30], "out": [34]}

    def cell(name, typ, ins, outs):
        conns = dict(ins)
        conns.update(outs)
        dirs = {p: "input" for p in ins}
        dirs.update({p: "output" for p in outs})
        cells[name] = {"type": typ, "connections": conns, "port_directions": dirs}

    cell("ra", "FDRE", {"D": [40], "C": [41]}, {"Q": [1]})
    cell("l1", "LUT2", {"I0": [1], "I1": [1]}, {"O": [2]})
    cell("l2", "LUT2", {"I0": [2], "I1": [1]}, {"O": [3]})
    cell("c1", "CARRY4", {"CI": [3], "S": [3, 3, 3, 3], "DI": ["0"] * 4}, {"CO": [4, 5, 6, 7], "O": [8] * 4})
    cell("c2", "CARRY4", {"CI": [7], "S": [3, 3, 3, 3], "DI": ["0"] * 4}, {"CO": [9, 10, 11, 12], "O": [13] * 4})
    cell("c3", "CARRY4", {"CI": [12], "S": [3, 3, 3, 3], "DI": ["0"] * 4}, {"CO": [14, 15, 16, 17], "O": [18] * 4})
    cell("m7", "MUXF7", {"I0": [17], "I1": [2], "S": [1]}, {"O": [19]})
    cell("rq", "FDRE", {"D": [19], "C": [41]}, {"Q": [20]})
    for k, (i, o) in enumerate([(30, 31), (31, 32), (32, 33), (33, 34)]):
        cell(f"b{k}", "LUT1", {"I0": [i]}, {"O": [o]})
    design = {"modules": {"top": {"attributes": {"top": 1}, "cells": cells,
                                  "netnames": {n: {"bits": b} for n, b in nets.items()}}}}
    got = longest(design)
    want = (5, 2, 1, 3, "a", "q")
    assert got == want, f"levels.py self-test: {got}, want {want}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    elif len(sys.argv) == 2:
        print(*main(sys.argv[1]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--path":
        trace = []
        print(*main(sys.argv[2], trace))
        with open(sys.argv[2]) as f:
            mod = next(m for m in json.load(f)["modules"].values() if m.get("attributes", {}).get("top"))
        # Every name a net has, the generated ones ($...) left out where it has another.
        names = {}
        for n, v in mod["netnames"].items():
            for b in v["bits"]:
                names.setdefault(b, []).append(n)

        def label(b):
            ns = sorted(names.get(b, [str(b)]), key=lambda n: (n.startswith("$"), len(n)))
            return ns[0]

        for t, cname, b in reversed(trace):
            outs = [
                label(q)
                for port, bits in mod["cells"][cname]["connections"].items()
                if mod["cells"][cname]["port_directions"][port] == "output"
                for q in bits
                if not isinstance(q, str)
            ]
            # The cell's other inputs that carry a name of the design's: what the path meets there.
            side = sorted(
                {
                    label(q)
                    for port, bits in mod["cells"][cname]["connections"].items()
                    if mod["cells"][cname]["port_directions"][port] == "input"
                    for q in bits
                    if not isinstance(q, str) and q != b and not label(q).startswith("$")
                }
            )
            print(f"  {t:6} {' '.join(sorted(set(outs))[:2])[:60]:60} meets {' '.join(side)}")
    else:
        sys.exit(__doc__)

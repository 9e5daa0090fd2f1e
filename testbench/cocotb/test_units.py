"""pytest entry for every cocotb bench: one pytest test per (bench, width, cocotb test), each run in its
own Icarus simulation (fresh state, selectable with -k, e.g. `pytest testbench/cocotb -k pfc`).

The unit's Verilog is emitted once per (unit, width) by `emit-unit`, and Icarus builds it once into
out/cocotb/<bench>-<width>/.
"""
import functools
import os
import sys

import pytest

from benches import BENCHES, HERE, QP_LOG, REPO, cocotb_tests, emit, known_bugs, module_of

BUILD = REPO / "out" / "cocotb"


def _cases():
    for bench, (unit, widths) in BENCHES.items():
        if not module_of(bench).exists():
            continue
        bugs = known_bugs(bench)
        for width in widths:
            for name in cocotb_tests(bench):
                reason = bugs.get(f"{name}@{width}") or bugs.get(name)
                marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
                yield pytest.param(bench, unit, width, name, id=f"{bench}{width}-{name}", marks=marks)


@functools.lru_cache(maxsize=None)
def _built(bench: str, unit: str, width: int):
    from cocotb_tools.runner import get_runner

    build_dir = BUILD / f"{bench}-{width}"
    verilog = emit(unit, width, build_dir / f"{unit}_{width}.v", QP_LOG.get(bench))
    runner = get_runner("icarus")
    runner.build(sources=[verilog], hdl_toplevel="top", build_dir=build_dir,
                 timescale=("1ns", "1ps"), always=False)
    return runner, build_dir


@pytest.mark.parametrize("bench,unit,width,name", list(_cases()))
def test_cocotb(bench, unit, width, name):
    from cocotb_tools.check_results import get_results

    runner, build_dir = _built(bench, unit, width)
    test_dir = build_dir / "runs" / name
    test_dir.mkdir(parents=True, exist_ok=True)
    results = test_dir / "results.xml"
    if results.exists():
        results.unlink()
    # The runner hands the simulator's Python this process's sys.path as PYTHONPATH.
    for p in (str(HERE), str(HERE / bench)):
        if p not in sys.path:
            sys.path.insert(0, p)
    os.environ["BENCH_WIDTH"] = str(width)
    try:
        runner.test(test_module=f"test_{bench}", hdl_toplevel="top", testcase=name, build_dir=build_dir,
                    test_dir=test_dir, results_xml=str(results), timescale=("1ns", "1ps"),
                    extra_env={"COCOTB_RANDOM_SEED": "1"},
                    log_file=test_dir / "sim.log")
    except SystemExit:
        pass  # the runner exits on a failed cocotb test: the results file says which
    tests, failed = get_results(results)
    assert tests == 1, f"{bench}{width}/{name}: ran {tests} cocotb tests (see {test_dir / 'sim.log'})"
    assert failed == 0, f"{bench}{width}/{name} failed (see {test_dir / 'sim.log'})"

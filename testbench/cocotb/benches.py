"""The bench table shared by the pytest entry (test_units.py) and documentation: bench folder, the
`emit-unit` unit it tests, the widths it runs at, and its cocotb test module."""
import ast
import os
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# folder: (emit-unit name, widths)
BENCHES = {
    "icrc": ("crc32_pipe", (64, 512)),
    "icrc_insert": ("icrc_insert", (64, 512)),
    "parser": ("rx_buffer", (64, 512)),
    "pfc": ("pfc", (64, 512)),
    "dma": ("dma_split", (64, 512)),
    "scatter": ("scatter", (64, 512)),
    "arp": ("arp", (64, 512)),
    "ndp": ("ndp", (64, 512)),
    "vlan": ("vlan_insert", (64, 512)),
    "vlan_strip": ("vlan_strip", (64, 512)),
    "nic": ("nic", (64,)),
}
# Benches whose unit is built with 2^n QPs and MRs instead of the width's own table (emit-unit's qp_log).
# The NIC bench takes the ECP5 build's 64: the driver's bring-up clears every QP, one per cycle, which with
# 8,192 QPs was two thirds of each test's Icarus time. The full-size tables run in the Verilated co-sim.
QP_LOG = {"nic": 6}


def module_of(bench: str) -> Path:
    return HERE / bench / f"test_{bench}.py"


def cocotb_tests(bench: str):
    """Names of the @cocotb.test() functions of a bench module (read with ast: no cocotb import)."""
    tree = ast.parse(module_of(bench).read_text())
    names = []
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Attribute) and f.attr == "test":
                    names.append(node.name)
    return names


def known_bugs(bench: str):
    """The bench's KNOWN_RTL_BUGS: {"test_name" or "test_name@width": reason} (documented RTL bugs
    whose tests are expected to fail until the RTL is fixed)."""
    tree = ast.parse(module_of(bench).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KNOWN_RTL_BUGS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def emit(unit: str, width: int, out: Path, qp_log=None) -> Path:
    """Write the unit's Verilog with `emit-unit` (the build in ROCENIC_BIN_DIR if set, else a cargo
    release build), replacing `out` only when it
    changed so the simulator build is reused."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".v.tmp")
    args = [unit, str(width), str(tmp)] + ([str(qp_log)] if qp_log is not None else [])
    # The test job builds the emitters first and says where (ROCENIC_BIN_DIR), so the benches can run
    # beside `cargo test` without waiting for its hold on the build directory.
    bin_dir = os.environ.get("ROCENIC_BIN_DIR")
    if bin_dir:
        subprocess.run([str(Path(bin_dir) / "emit-unit")] + args, cwd=REPO, check=True)
    else:
        cargo = shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo")
        subprocess.run([cargo, "run", "--release", "-q", "--bin", "emit-unit", "--"] + args,
                       cwd=REPO, check=True)
    if out.exists() and out.read_bytes() == tmp.read_bytes():
        tmp.unlink()
    else:
        os.replace(tmp, out)
    return out

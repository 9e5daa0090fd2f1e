import sys
from pathlib import Path

# benches.py, model/ and tb/ are imported from this folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The bench modules (<bench>/test_<bench>.py) are cocotb tests that run inside the simulator; pytest
# reaches them only through test_units.py.
collect_ignore_glob = ["*/test_*.py", "*/build/*"]

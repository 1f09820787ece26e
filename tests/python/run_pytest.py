"""ctest's entry to the Python tests: exit 77 (skipped) where the interpreter lacks
what they need, else pytest's own exit code."""
import importlib.util
import sys

missing = [m for m in ("pytest", "numpy", "scipy", "networkx") if importlib.util.find_spec(m) is None]
if missing:
    print("skipped: this Python lacks " + ", ".join(missing))
    sys.exit(77)
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]]))

"""The package's doctests draw with matplotlib's Agg backend (no window opens), as the tests do."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

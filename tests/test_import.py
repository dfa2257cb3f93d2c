import subprocess
import sys

import pandas as pd

import pdmetrics


def test_accessors_registered():
    frame = pd.DataFrame({"a": [1]})
    for name in ("scoring", "fairness", "detection"):
        assert hasattr(frame, name)


def test_importing_twice_is_silent():
    code = "import pdmetrics, importlib; import pdmetrics; import pandas as pd; pd.DataFrame().scoring"
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_public_errors_are_standard_exceptions():
    assert issubclass(pdmetrics.ColumnNotFoundError, KeyError)
    assert issubclass(pdmetrics.InvalidInputError, ValueError)
    assert issubclass(pdmetrics.UndefinedMetricWarning, UserWarning)
    assert str(pdmetrics.ColumnNotFoundError("no such column")) == "no such column"


def test_read_coco_reachable_after_a_plain_import():
    code = "import pdmetrics; print(pdmetrics.io.read_coco.__name__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "read_coco"


def test_import_does_not_load_matplotlib():
    code = (
        "import sys, pandas as pd, pdmetrics; pd.DataFrame({'a': [1]}).scoring.plot; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_import_does_not_load_polars():
    code = (
        "import sys, pandas as pd, pdmetrics; pd.DataFrame({'a': [1]}).scoring; "
        "print('polars' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"

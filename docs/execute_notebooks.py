"""Execute the notebooks in notebooks/ and store them with their outputs.

The repository keeps the notebooks executed, so a reader of the repository (and the docs build,
which shows the stored outputs: ``nb_execution_mode = "off"`` in docs/conf.py) sees every table
and figure. Run it after changing a notebook or anything the notebooks show::

    python docs/execute_notebooks.py                # every notebook
    python docs/execute_notebooks.py notebooks/03_fairness.ipynb

Each notebook runs from a clean state in a fresh ipykernel, in the notebooks' folder, with
figures stored as PNG; outputs are kept deterministic where the notebooks allow it (no
execution timestamps, execution counts 1, 2, ...). The test suite executes every notebook again
(tests/test_notebooks.py), so a stored notebook that no longer runs fails the tests.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
#: run before the first cell and not stored: figures as PNG at a moderate resolution
SETUP = "%config InlineBackend.figure_formats = ['png']\n%config InlineBackend.rc = {'figure.dpi': 80}"


def execute(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` executed from a clean state, without volatile metadata."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    # the setup runs as a first cell, removed again after the run (so it is never stored)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    del notebook.cells[0]
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.execution_count is not None:
            cell.execution_count -= 1
            for output in cell.outputs:
                if "execution_count" in output:
                    output.execution_count -= 1
    notebook.metadata.pop("widgets", None)
    return notebook


def main(argv: list[str]) -> int:
    # the kernel inherits the environment: with MPLBACKEND=Agg (as the test suite sets it) the
    # figures would not be shown, so not stored
    os.environ.pop("MPLBACKEND", None)
    paths = [Path(a) for a in argv] or sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        notebook = execute(path)
        nbformat.write(notebook, path)
        print(f"executed {path.name}: {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

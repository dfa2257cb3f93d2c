"""The tables of an rsmcompare report, at full precision, as RSMTool's own code makes them.

Run with RSMTool's Python (``python rsmtool_tables.py REPORT_FOLDER OUT_FOLDER``): it runs the
code cells of the report notebook rsmcompare wrote (``<comparison_id>_report.ipynb``, beside
its ``.environ.json``), records every DataFrame the notebook turns into an HTML table (and the
heading shown above it), and writes each as ``OUT_FOLDER/<n>.csv`` (full precision) with
``OUT_FOLDER/tables.json`` listing ``[n, heading]``. The HTML report shows the same tables
rounded to three decimals.
"""

import json
import os
import sys
from pathlib import Path

import IPython.display
import matplotlib
import pandas as pd

matplotlib.use("Agg")


def main() -> None:
    report, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    notebook = json.loads(next(report.glob("*_report.ipynb")).read_text())
    os.environ["RSM_REPORT_DIR"] = str(report)
    recorded, heading = [], [""]

    def to_html(frame, *args, **kwargs):
        recorded.append((heading[0], frame.copy()))
        return ""

    def markdown(text, *args, **kwargs):
        lines = [line.strip("# ").strip() for line in str(text).splitlines() if line.startswith("#")]
        if lines:
            heading[0] = lines[-1]
        return text

    pd.DataFrame.to_html = to_html
    quiet = lambda *args, **kwargs: None  # noqa: E731
    for name in ("display", "HTML", "SVG", "Image", "Javascript"):
        setattr(IPython.display, name, quiet)
    IPython.display.Markdown = markdown
    namespace = {"__name__": "report"}
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            markdown(source)
            continue
        if source.lstrip().startswith("%%"):  # a cell magic (%%html): no Python
            continue
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
        if code.strip():
            exec(compile(code, "report", "exec"), namespace)  # noqa: S102
    listed = []
    for k, (title, frame) in enumerate(recorded):
        frame.to_csv(out / f"{k}.csv")
        listed.append([k, title])
    (out / "tables.json").write_text(json.dumps(listed, indent=1) + "\n")


if __name__ == "__main__":
    main()

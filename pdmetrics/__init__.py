"""pdmetrics: evaluate scoring engines, classifiers and detectors from inside pandas.

Importing the package registers four DataFrame accessors:

- ``df.scoring``: automated scores against human scores (RSMTool's metrics);
- ``df.fairness``: fairness of scores and classifiers;
- ``df.detection``: classification, object detection and segmentation metrics;
- ``df.textgen``: text generation metrics (ROUGE, BLEU, the LLM-guided metrics).
"""

# the accessor packages register df.scoring, df.fairness, df.detection; io is imported so that
# pdmetrics.io.read_coco works after a plain `import pdmetrics`
import pdmetrics._startup  # noqa: F401, I001  (first: Ctrl-C while the command starts)
from pdmetrics import detection, fairness, io, scoring, textgen  # noqa: F401
from pdmetrics.accessors import install as _install_accessors
from pdmetrics.errors import (
    ColumnNotFoundError,
    EmptyTokensWarning,
    ExcludedRowsWarning,
    InvalidInputError,
    MissingDependencyError,
    NotPartitionableError,
    PdmetricsError,
    PdmetricsWarning,
    UndefinedMetricWarning,
)

__version__ = "0.1.0"

# the accessors on pandas DataFrames now, on dask and polars frames when those are (or get) imported
_install_accessors()

__all__ = [
    "ColumnNotFoundError",
    "EmptyTokensWarning",
    "ExcludedRowsWarning",
    "InvalidInputError",
    "MissingDependencyError",
    "NotPartitionableError",
    "PdmetricsError",
    "PdmetricsWarning",
    "UndefinedMetricWarning",
    "__version__",
]

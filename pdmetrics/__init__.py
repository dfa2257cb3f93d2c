"""pdmetrics: evaluate scoring engines, classifiers and detectors from inside pandas.

Importing the package registers three DataFrame accessors:

- ``df.scoring``: automated scores against human scores (RSMTool's metrics);
- ``df.fairness``: fairness of scores and classifiers;
- ``df.detection``: classification, object detection and segmentation metrics.
"""

from pdmetrics import detection, fairness, scoring  # noqa: F401  (registers the accessors)
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    PdmetricsError,
    PdmetricsWarning,
    UndefinedMetricWarning,
)

__version__ = "0.1.0"

__all__ = [
    "ColumnNotFoundError",
    "ExcludedRowsWarning",
    "InvalidInputError",
    "PdmetricsError",
    "PdmetricsWarning",
    "UndefinedMetricWarning",
    "__version__",
]

"""The ``df.fairness`` accessor."""

from __future__ import annotations

import pandas as pd

from pdmetrics._validation import require_columns
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness.by_group import group_disparity, group_rates
from pdmetrics.fairness.classification import classification_fairness


@pd.api.extensions.register_dataframe_accessor("fairness")
class FairnessAccessor:
    """Fairness metrics on a DataFrame: ``df.fairness.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def _columns(self, argument: str, names) -> dict:
        names = require_columns(self._frame, argument, names)
        return {name: self._frame[name] for name in names}

    def _column(self, argument: str, name) -> pd.Series:
        if isinstance(name, (list, tuple)):
            raise InvalidInputError(f"`{argument}=` takes one column name; got {list(name)!r}.")
        require_columns(self._frame, argument, name)
        return self._frame[name]

    # ----------------------------------------------------------------------------------
    # Classification fairness (seed 003: SPD, DI, AOD, EOD; per-group rates)
    # ----------------------------------------------------------------------------------
    def classification(self, *, y_true, y_pred, sensitive, pos_label=1, privileged=None, threshold=0.0,
                       invert=False, on_undefined: str = "worst", zero_division=None) -> pd.DataFrame:
        """Group fairness of binary predictions, one row per sensitive column plus their average.

        A wrapper over :func:`pdmetrics.fairness.classification_fairness`: see it for the
        options and the columns. ``y_true`` and ``y_pred`` name the label columns,
        ``sensitive`` one column or a list.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 1, 0, 1, 1],
        ...                    "male": [1, 1, 1, 0, 0, 0], "age": [30, 50, 45, 20, 60, 35]})
        >>> table = df.fairness.classification(y_true="y", y_pred="pred", sensitive=["male", "age"],
        ...                                    threshold={"age": 40})
        >>> table[["sensitive", "N_privileged", "equal_opportunity_difference"]]
           sensitive  N_privileged  equal_opportunity_difference
        0       male             3                         -1.00
        1        age             3                         -0.50
        2  (average)          <NA>                         -0.75
        """
        return classification_fairness(self._column("y_true", y_true), self._column("y_pred", y_pred),
                                       self._columns("sensitive", sensitive),
                                       pos_label=pos_label, privileged=privileged, threshold=threshold,
                                       invert=invert, on_undefined=on_undefined, zero_division=zero_division)

    def by_group(self, *, y_true, y_pred, by, pos_label=1, zero_division=None, n_boot: int = 0,
                 confidence: float = 0.95, random_state=None) -> pd.DataFrame:
        """Confusion counts and rates per group (intersections when ``by`` is a list).

        A wrapper over :func:`pdmetrics.fairness.group_rates`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0],
        ...                    "sex": ["F", "F", "F", "M", "M", "M"]})
        >>> df.fairness.by_group(y_true="y", y_pred="pred", by="sex")[["sex", "N", "tpr"]]
          sex  N  tpr
        0   F  3  0.5
        1   M  3  1.0
        """
        return group_rates(self._column("y_true", y_true), self._column("y_pred", y_pred),
                           self._columns("by", by), pos_label=pos_label,
                           zero_division=zero_division, n_boot=n_boot, confidence=confidence,
                           random_state=random_state)

    def group_disparity(self, *, y_true, y_pred, by, pos_label=1, n_boot: int = 0,
                        confidence: float = 0.95, random_state=None) -> pd.DataFrame:
        """Differences and ratios of the groups' rates, one row per rate.

        A wrapper over :func:`pdmetrics.fairness.group_disparity`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0],
        ...                    "sex": ["F", "F", "F", "M", "M", "M"]})
        >>> out = df.fairness.group_disparity(y_true="y", y_pred="pred", by="sex")
        >>> out[["metric", "difference", "ratio"]].head(2).round(3)
                   metric  difference  ratio
        0  selection_rate       0.333    0.5
        1             tpr       0.500    0.5
        """
        return group_disparity(self._column("y_true", y_true), self._column("y_pred", y_pred),
                               self._columns("by", by),
                               pos_label=pos_label, n_boot=n_boot, confidence=confidence,
                               random_state=random_state)


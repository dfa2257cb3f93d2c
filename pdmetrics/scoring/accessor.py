"""The ``df.scoring`` accessor."""

from __future__ import annotations

import pandas as pd


@pd.api.extensions.register_dataframe_accessor("scoring")
class ScoringAccessor:
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

"""The ``df.detection`` accessor."""

from __future__ import annotations

import pandas as pd


@pd.api.extensions.register_dataframe_accessor("detection")
class DetectionAccessor:
    """Detection and classification metrics on a DataFrame: ``df.detection.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

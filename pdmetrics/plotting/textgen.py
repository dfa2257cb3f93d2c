"""Figures of the text-generation tables (``df.textgen.plot``).

:class:`TextgenPlots`, reached as ``df.textgen.plot``, computes a table from the frame's columns
and draws it in one call; ``compare`` draws the forest plot of
:func:`pdmetrics.textgen.compare` (:func:`pdmetrics.plotting.comparison.compare`).
"""

from __future__ import annotations

import pandas as pd

from pdmetrics.plotting.comparison import comparison_method

__all__ = ["TextgenPlots"]


class TextgenPlots:
    """``df.textgen.plot``: compute a text-generation table from the frame and draw it.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"ref": ["the cat sat on the mat", "a dog ran in the park"] * 20,
    ...                    "old": ["the cat sat", "a dog ran"] * 20,
    ...                    "new": ["the cat sat on a mat", "a dog ran in a park"] * 20})
    >>> axes = df.textgen.plot.compare(prediction=["old", "new"], reference="ref",
    ...                                metric=["rouge1", "rougeL"], n_resamples=200)
    >>> [a.get_title() for a in axes]
    ['rouge1', 'rougeL']
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    compare = comparison_method("pdmetrics.textgen.comparison")

"""Mean system score at each human score level, per subgroup (RSMTool's conditional score plot)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["conditional_means_of_codes"]

#: Widest range of score labels counted directly (wider: the distinct labels are numbered first).
_MAX_LEVELS = 4096


def conditional_means_of_codes(
    human_labels: np.ndarray, system: np.ndarray, codes: np.ndarray, labels: np.ndarray, by
) -> pd.DataFrame:
    """The mean system score of each subgroup at each (integer) human score, in one pass.

    Parameters
    ----------
    human_labels : ndarray of int
        The human score of each row, rounded to an integer score label.
    system : ndarray of float
        The system score of each row (RSMTool uses the trimmed score).
    codes, labels : ndarray
        Each row's group code ``0..k-1`` and the ``k`` group labels.
    by : str
        The subgroup column's name.

    Returns
    -------
    DataFrame
        Columns ``by, group, human_score, N, sys_mean``: one row per group and human score
        present in the group, groups in label order, scores ascending.

    Examples
    --------
    >>> import numpy as np
    >>> table = conditional_means_of_codes(np.array([1, 2, 2, 1]), np.array([1.5, 2.0, 3.0, 0.5]),
    ...                                    np.array([0, 0, 0, 1]), np.array(["a", "b"]), "L1")
    >>> table[["group", "human_score", "N", "sys_mean"]]
      group  human_score  N  sys_mean
    0     a            1  1       1.5
    1     a            2  2       2.5
    2     b            1  1       0.5
    """
    low = int(human_labels.min()) if human_labels.size else 0
    width = int(human_labels.max()) - low + 1 if human_labels.size else 1
    scores = np.arange(low, low + min(width, _MAX_LEVELS))
    if width > _MAX_LEVELS:  # sparse score labels: number the distinct ones (a sort, rarely needed)
        scores, human_labels = np.unique(human_labels, return_inverse=True)
        low, width = 0, scores.size
    cells = codes.astype(np.intp)  # cell = group * width + (score - low), built in place
    cells *= width
    cells += human_labels
    cells -= low
    size = labels.size * width
    counts = np.bincount(cells, minlength=size)
    sums = np.bincount(cells, weights=system, minlength=size)
    present = np.flatnonzero(counts)
    return pd.DataFrame(
        {
            "by": by,
            "group": labels[present // width],
            "human_score": scores[present % width],
            "N": counts[present],
            "sys_mean": sums[present] / counts[present],
        }
    )

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

    # true scores (PRMSE)
    def true_score(self, *, system, raters, rater_error_variance=None, exclude_zero=True) -> pd.DataFrame:
        """Evaluation against true scores (RSMTool's ``true_score_eval``), one row per system column.

        Parameters
        ----------
        system : str or list of str
            System score column(s).
        raters : list of str
            Human rating columns (any number; a missing rating is NaN). With a single
            rater column, pass ``rater_error_variance``.
        rater_error_variance : float, optional
            Rater error variance estimated elsewhere (RSMTool's ``rater_error_variance``);
            default: estimated from the responses with two or more ratings.
        exclude_zero : bool, default True
            Treat a rating of 0 as missing (RSMTool's ``exclude_zero_scores``).

        Returns
        -------
        pandas.DataFrame
            ``system, N, N raters, N single, N multiple, Variance of errors, True score var,
            MSE true, PRMSE true`` (see :func:`pdmetrics.scoring.true_score_evaluation`).
            Responses with a missing system score or without any rating are left out, with
            an :class:`~pdmetrics.ExcludedRowsWarning`; ``N`` counts the rest. Unlike RSMTool,
            which drops every response without a first human score, a response rated only by
            a later rater is kept (as a single rating).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"h1": [1, 2, 3, 4, 5], "h2": [2, 2, None, 4, 4],
        ...                    "raw": [1.2, 2.1, 2.9, 4.2, 4.4]})
        >>> df.scoring.true_score(system="raw", raters=["h1", "h2"]).round(4).T
                                 0
        system                 raw
        N                        5
        N raters                 2
        N single                 1
        N multiple               4
        Variance of errors    0.25
        True score var      1.6875
        MSE true           -0.1044
        PRMSE true          1.0619
        """
        import warnings

        import numpy as np

        from pdmetrics._tables import attach_info
        from pdmetrics._validation import numeric_values, require_columns
        from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError
        from pdmetrics.scoring.true_score import check_error_variance, columns_matrix, true_score_evaluation

        frame = self._frame
        systems = require_columns(frame, "system", system)
        rater_names = require_columns(frame, "raters", raters)
        if not isinstance(exclude_zero, (bool, np.bool_)):
            raise InvalidInputError(f"`exclude_zero={exclude_zero!r}` must be True or False.")
        if rater_error_variance is not None:
            rater_error_variance = check_error_variance(rater_error_variance, "rater_error_variance")
        ratings = columns_matrix([numeric_values(frame[name], "raters") for name in rater_names])
        if exclude_zero:
            ratings[ratings == 0] = np.nan
        scores = columns_matrix([numeric_values(frame[name], "system") for name in systems])
        no_system = np.isnan(scores).any(axis=1)
        unrated = np.isnan(ratings).all(axis=1)
        keep = ~(no_system | unrated)
        dropped = int(np.count_nonzero(~keep))
        if dropped:
            warnings.warn(
                f"{dropped} of {len(frame)} responses were left out of the true score evaluation: "
                f"{int(np.count_nonzero(no_system))} with a missing or non-numeric system score, "
                f"{int(np.count_nonzero(unrated & ~no_system))} (more) without any rating"
                + (" (zeros count as missing: exclude_zero=True)" if exclude_zero else "") + ".",
                ExcludedRowsWarning, stacklevel=2)
        if len(frame) and not keep.any():
            raise InvalidInputError("No response has both a system score and a rating; check the "
                                    f"`system={systems!r}` and `raters={rater_names!r}` columns.")
        if dropped:
            scores, ratings = scores[keep], ratings[keep]
        table = true_score_evaluation(dict(zip(systems, scores.T)), ratings,
                                      variance_errors=rater_error_variance)
        return attach_info(table, rows_used=int(keep.sum()), rows_excluded=dropped, raters=rater_names,
                           exclude_zero=bool(exclude_zero), rater_error_variance=rater_error_variance)

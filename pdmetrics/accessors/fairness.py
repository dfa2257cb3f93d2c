"""The ``df.fairness`` accessor."""

from __future__ import annotations

import pandas as pd

from pdmetrics._groups import group_columns
from pdmetrics._renamed import renamed
from pdmetrics._validation import one_column
from pdmetrics.accessors.base import Accessor, namespace
from pdmetrics.fairness import llm
from pdmetrics.fairness.association import context_association
from pdmetrics.fairness.averages import average_metrics
from pdmetrics.fairness.group_rates import by_group, group_disparity
from pdmetrics.fairness.language import language_accuracy
from pdmetrics.fairness.llm import llm_fairness
from pdmetrics.fairness.parity import classification
from pdmetrics.fairness.regression import score_fairness, score_fairness_estimates


class FairnessAccessor(Accessor):
    """Fairness metrics on a DataFrame: ``df.fairness.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    _domain = "fairness"

    plot = namespace(
        "pdmetrics.plotting.fairness",
        "FairnessPlots",
        """Figures of the fairness tables: ``df.fairness.plot.by_group(...)``, ``.classification(...)``,
        ``.group_disparity(...)`` (see :class:`pdmetrics.plotting.fairness.FairnessPlots`).""",
    )

    def _column(self, argument: str, name) -> pd.Series:
        return one_column(self._frame, argument, name)

    def _optional(self, argument: str, name) -> pd.Series | None:
        return None if name is None else self._column(argument, name)

    def _groups(self, by, argument: str = "by") -> list | None:
        return None if by is None else group_columns(self._frame, by, argument)

    # ----------------------------------------------------------------------------------
    # Classification fairness (seed 003: SPD, DI, AOD, EOD; per-group rates)
    # ----------------------------------------------------------------------------------
    @renamed("sensitive", "on_undefined", "n_boot")
    def classification(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        privileged=None,
        threshold=0.0,
        invert=False,
        zero_division="worst",
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
    ) -> pd.DataFrame:
        """Group fairness of binary predictions, one row per sensitive column plus their average.

        A wrapper over :func:`pdmetrics.fairness.classification`: see it for the
        options and the columns. ``y_true`` and ``y_pred`` name the label columns,
        ``by`` the group column (a sensitive attribute) or a list of them.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 1, 0, 1, 1],
        ...                    "male": [1, 1, 1, 0, 0, 0], "age": [30, 50, 45, 20, 60, 35]})
        >>> table = df.fairness.classification(y_true="y", y_pred="pred", by=["male", "age"],
        ...                                    threshold={"age": 40})
        >>> table[["by", "N_privileged", "equal_opportunity_difference"]]
              by  N_privileged  equal_opportunity_difference
        0   male             3                         -1.00
        1    age             3                         -0.50
        2  (all)          <NA>                         -0.75
        """
        return classification(
            self._column("y_true", y_true),
            self._column("y_pred", y_pred),
            self._groups(by),
            pos_label=pos_label,
            privileged=privileged,
            threshold=threshold,
            invert=invert,
            zero_division=zero_division,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )

    @renamed("sensitive", "n_boot")
    def by_group(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        zero_division="warn",
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
    ) -> pd.DataFrame:
        """Confusion counts and rates per group (intersections when ``by`` is a list).

        A wrapper over :func:`pdmetrics.fairness.by_group`.

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
        return by_group(
            self._column("y_true", y_true),
            self._column("y_pred", y_pred),
            self._groups(by),
            pos_label=pos_label,
            zero_division=zero_division,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )

    @renamed("sensitive", "n_boot")
    def group_disparity(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
    ) -> pd.DataFrame:
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
        return group_disparity(
            self._column("y_true", y_true),
            self._column("y_pred", y_pred),
            self._groups(by),
            pos_label=pos_label,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )

    # ----------------------------------------------------------------------------------
    # LLM evaluation tables (seed 003: LLM fairness, context association, counterfactual,
    # language evaluations, averages across data sets)
    # ----------------------------------------------------------------------------------
    @renamed("sensitive", "on_undefined")
    def llm_fairness(
        self,
        *,
        y_true,
        response,
        by,
        positive,
        negative,
        error=None,
        pos_label=None,
        privileged=None,
        threshold=0.0,
        invert=False,
        zero_division="worst",
    ) -> pd.DataFrame:
        """Classification fairness of an LLM's two-way answers (invalid answers and errors counted, left out).

        A wrapper over :func:`pdmetrics.fairness.llm_fairness`; ``error`` names an optional
        column of call-error flags.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"label": ["H", "L", "H", "L", "H", "L", "H", "L"],
        ...                    "answer": ["H", "L", "L", "H", "H?", None, "H", "L"],
        ...                    "male": [1, 1, 0, 0, 1, 0, 0, 1]})
        >>> table = df.fairness.llm_fairness(y_true="label", response="answer", by="male",
        ...                                  positive="H", negative="L")
        >>> table[["by", "N", "N_invalid", "N_error"]]
              by  N  N_invalid  N_error
        0   male  6          1        1
        1  (all)  6          1        1
        """
        return llm_fairness(
            self._column("y_true", y_true),
            self._column("response", response),
            self._groups(by),
            positive=positive,
            negative=negative,
            error=self._optional("error", error),
            pos_label=pos_label,
            privileged=privileged,
            threshold=threshold,
            invert=invert,
            zero_division=zero_division,
        )

    def context_association(
        self, *, response, stereotype, anti_stereotype, unrelated, error=None, by=None, zero_division="warn"
    ) -> pd.DataFrame:
        """Context association test counts with LMS, SS and iCAT (0..100), per group and overall.

        ``stereotype``, ``anti_stereotype`` and ``unrelated`` name the columns holding each
        item's option number (1, 2 or 3) of that answer. A wrapper over
        :func:`pdmetrics.fairness.context_association`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"answer": ["1", " 2 because", "3", "<think>hm</think>1", "none"],
        ...                    "st": [1, 2, 3, 2, 1], "anti": [2, 1, 2, 1, 2], "unrel": [3, 3, 1, 3, 3]})
        >>> out = df.fairness.context_association(response="answer", stereotype="st",
        ...                                       anti_stereotype="anti", unrelated="unrel")
        >>> out[["N", "N_stereotype", "N_anti_stereotype", "N_other", "lms", "ss", "icat"]]
           N  N_stereotype  N_anti_stereotype  N_other   lms    ss  icat
        0  5             3                  1        1  80.0  75.0  40.0
        """
        return context_association(
            self._column("response", response),
            self._column("stereotype", stereotype),
            self._column("anti_stereotype", anti_stereotype),
            self._column("unrelated", unrelated),
            error=self._optional("error", error),
            by=self._groups(by),
            zero_division=zero_division,
        )

    def counterfactual(
        self,
        *,
        prediction,
        counterfactual,
        by=None,
        valid=None,
        error=None,
        counterfactual_error=None,
        zero_division="warn",
    ) -> pd.DataFrame:
        """Change rate of the answers between each prompt and its counterfactual twin, per original group.

        A wrapper over :func:`pdmetrics.fairness.counterfactual`; ``valid`` is the
        list of valid answers, ``error``/``counterfactual_error`` name optional flag columns,
        ``by`` the group column(s) (e.g. the original sensitive value of each pair).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"answer": ["H", "H", "L", "x", "L"], "answer_cf": ["H", "L", "L", "y", None],
        ...                    "male": [0, 1, 1, 0, 0]})
        >>> df.fairness.counterfactual(prediction="answer", counterfactual="answer_cf", by="male",
        ...                            valid=["H", "L"])
            male  N  N_error  N_changed  change_rate
        0      0  3        1          0         0.00
        1      1  2        0          1         0.50
        2  (all)  5        1          1         0.25
        """
        return llm.counterfactual(  # the module: the argument `counterfactual` hides the function
            self._column("prediction", prediction),
            self._column("counterfactual", counterfactual),
            by=self._groups(by),
            valid=valid,
            error=self._optional("error", error),
            counterfactual_error=self._optional("counterfactual_error", counterfactual_error),
            zero_division=zero_division,
        )

    def language_accuracy(
        self, *, response, answer, options, error=None, by=None, zero_division="warn"
    ) -> pd.DataFrame:
        """Format error rate, overall accuracy and accuracy on valid responses, per group and overall.

        ``options`` names a column holding each question's list of options, or is one list
        of options for every question. A wrapper over
        :func:`pdmetrics.fairness.language_accuracy`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"lang": ["en", "en", "es", "es"],
        ...                    "response": ["Paris", "Rome", "parís", "No lo sé"],
        ...                    "answer": ["Paris", "Paris", "París", "París"],
        ...                    "options": [["Paris", "Rome"], ["Paris", "Rome"], ["París", "Roma"],
        ...                                ["París", "Roma"]]})
        >>> out = df.fairness.language_accuracy(response="response", answer="answer", options="options",
        ...                                     by="lang")
        >>> out[["lang", "N_correct", "N_incorrect", "N_invalid", "overall_accuracy"]]
            lang  N_correct  N_incorrect  N_invalid  overall_accuracy
        0     en          1            1          0               0.5
        1     es          1            0          1               0.5
        2  (all)          2            1          1               0.5
        """
        if isinstance(options, (list, tuple)):
            choices = list(options)
        else:
            choices = self._column("options", options)
        return language_accuracy(
            self._column("response", response),
            self._column("answer", answer),
            choices,
            error=self._optional("error", error),
            by=self._groups(by),
            zero_division=zero_division,
        )

    def average_metrics(self, *, metrics=None, by=None) -> pd.DataFrame:
        """Mean of each metric over the rows (e.g. concatenated evaluation tables), NaN skipped.

        A wrapper over :func:`pdmetrics.fairness.average_metrics`.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> tables = pd.DataFrame({"dataset": ["pisa", "compas"], "lms": [80.0, 70.0],
        ...                        "ss": [60.0, np.nan]})
        >>> tables.fairness.average_metrics()
           N   lms    ss
        0  2  75.0  60.0
        """
        return average_metrics(self._frame, metrics=metrics, by=by)

    # score fairness (RSMTool)
    def score_fairness(self, *, human, system, by, base_group=None) -> pd.DataFrame:
        """Score fairness metrics (OSA, OSD, CSD) per group column, as RSMTool's ``fairness_metrics_by_<G>``.

        Parameters
        ----------
        human, system : str
            Columns of human scores and system scores (RSMTool uses the trimmed system
            score, ``raw_trim`` or ``scale_trim``).
        by : str or list of str
            Group column(s); one block of three rows per column.
        base_group : optional
            Reference group (for every group column). Default: the largest group, ties
            broken alphabetically.

        Returns
        -------
        pandas.DataFrame
            The table of :func:`pdmetrics.fairness.score_fairness`: ``by`` (the group
            column), ``model, metric, base_category, N, R2, sig, F, df_num, df_denom,
            R2_unadjusted``. ``R2`` is RSMTool's: the adjusted R2 (can be negative).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 2, 3, 4, 5, 3, 3, 2, 4, 3],
        ...                    "raw": [1.2, 2.2, 2.9, 3.7, 2.5, 3.1, 3.6, 4.4, 3.3, 2.8, 2.1, 4.3, 3.0],
        ...                    "L1": ["big"] * 5 + ["x.y"] * 4 + ["z"] * 4})
        >>> table = df.fairness.score_fairness(human="sc1", system="raw", by="L1")
        >>> table[["by", "model", "R2", "sig"]].round(4)
           by model      R2     sig
        0  L1   osa  0.0523  0.3072
        1  L1   osd -0.0494  0.5115
        2  L1   csd -0.2050  0.9523
        """
        return score_fairness(
            self._column("human", human),
            self._column("system", system),
            {column.name: column for column in self._groups(by)},
            base_group=base_group,
        )

    def score_fairness_estimates(self, *, human, system, by, base_group=None) -> pd.DataFrame:
        """Coefficients of the score fairness models, as RSMTool's ``estimates_{osa,osd,csd}_by_<G>``.

        Parameters are those of :meth:`score_fairness`.

        Returns
        -------
        pandas.DataFrame
            The table of :func:`pdmetrics.fairness.score_fairness_estimates`: ``by`` (the
            group column), ``model, term, group, rsmtool_label, N, estimate, P>[t],
            [0.025, 0.975]``. ``group`` holds the full
            label; ``rsmtool_label`` the row label RSMTool writes (cut at the first ``"."``).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3], "raw": [1, 1.5, 3, 3.5],
        ...                    "L1": ["Klingon", "Klingon", "Esperanto", "Esperanto"]})
        >>> table = df.fairness.score_fairness_estimates(human="sc1", system="raw", by="L1")
        >>> table.loc[table["model"] == "osd", ["group", "rsmtool_label", "estimate"]]
               group          rsmtool_label  estimate
        2  Esperanto  Intercept (Esperanto)      0.75
        3    Klingon                Klingon     -2.00
        """
        return score_fairness_estimates(
            self._column("human", human),
            self._column("system", system),
            {column.name: column for column in self._groups(by)},
            base_group=base_group,
        )


#: The classes registered on dask and polars frames while these methods do not run through specs.
ENGINES = {
    "dask": "pdmetrics._dask.fairness:DaskFairnessAccessor",
    "polars": "pdmetrics.engines.polars:forwarding_class",
}

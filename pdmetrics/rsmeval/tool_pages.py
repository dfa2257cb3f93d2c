"""The pages of ``pdmetrics rsmcompare`` and ``pdmetrics rsmsummarize``: their sections, written
from the comparison and summary tables (:mod:`pdmetrics.rsmeval.rsmcompare`,
:mod:`pdmetrics.rsmeval.rsmsummarize`) with the report's page machinery
(:mod:`pdmetrics.rsmeval.html_page`, :mod:`pdmetrics.rsmeval.figures`): one offline HTML file each."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pdmetrics._groups import POOLED_LABEL
from pdmetrics.rsmeval import figures
from pdmetrics.rsmeval.html_page import (
    PageWriter,
    comparison_html,
    escape,
    package_version,
    page_html,
    sysinfo_html,
    table_html,
)

__all__ = ["ComparisonPage", "SummaryPage", "FEATURE_TABLES"]

#: The tables of the feature sections (rsmtool experiments): section -> (table, heading).
FEATURE_TABLES = {
    "feature_descriptives": (
        ("feature_descriptives", "Overall descriptive feature statistics"),
        ("feature_outliers", "Prevalence of recoded cases"),
        ("feature_percentiles", "Feature value distribution"),
    ),
    "preprocessed_features": (
        ("margcor_score_overview", "Overall human-feature marginal correlations"),
        ("pcor_score_overview", "Overall human-feature partial correlations"),
        ("pcor_score_no_length_all_data", "Partial correlations with the human score, length controlled"),
    ),
}

#: The sections' headings (rsmcompare's).
COMPARE_TITLES = {
    "feature_descriptives": "Feature descriptives",
    "features_by_group": "Features by subgroup",
    "preprocessed_features": "Human-feature correlations",
    "preprocessed_features_by_group": "Human-feature correlations by subgroup",
    "consistency": "Consistency",
    "score_distributions": "Score distributions",
    "model": "Feature weights",
    "evaluation": "Association statistics",
    "true_score_evaluation": "True score evaluations",
    "pca": "Data reduction analyses",
    "notes": "Notes",
    "sysinfo": "System information",
}

SUMMARY_TITLES = {
    "preprocessed_features": "Feature descriptives",
    "model": "Model",
    "evaluation": "Evaluation results",
    "true_score_evaluation": "True score evaluations",
    "intermediate_file_paths": "Links to intermediate files",
    "sysinfo": "System information",
}

#: What rsmsummarize's files hold (its list of intermediate files).
_DESCRIPTIONS = {
    "betas": "Standardized coefficients for each experiment",
    "eval_short": "More commonly used evaluation metrics for each experiment",
    "margcor_score_all_data": "Marginal correlations between pre-processed features and human score for each "
    "experiment",
    "model_fit": "R^2 and adjusted R^2 computed on the training set for each experiment",
    "model_summary": "Summary of models used for each experiment",
    "paired_comparison": "Paired comparison of the experiments on their common responses (pdmetrics: "
    "differences with intervals and p-values)",
    "pcor_score_all_data": "Partial feature-score correlations for each experiment, controlling for other "
    "features",
    "pcor_score_no_length_all_data": "Partial feature-score correlations for each experiment, also "
    "controlling for length",
    "true_score_eval": "Metrics evaluating how well system scores predict true scores for each experiment",
}
_NOT_AVAILABLE = "This information is not available for either of the models."


class ComparisonPage(PageWriter):
    """rsmcompare's report: its sections, from the comparison tables."""

    def __init__(self, config, old, new, tables, facts, options, files, boxes=None) -> None:
        super().__init__()
        self.config, self.old, self.new = config, old, new
        self.tables, self.facts, self.options, self.files = tables, facts, options, files
        #: the box plots by subgroup: (version, subgroup) -> (statistics, fliers), or a note
        self.boxes = boxes or {}
        #: what the tables' ``attrs`` say (the page's notes), kept before the tables are written
        self.table_facts = {name: dict(table.attrs) for name, table in tables.items()}

    def page(self, sections) -> str:
        bodies = self.sections(sections, COMPARE_TITLES)
        config = self.config
        title = f"Comparison report: {config['comparison_id']}"
        described = [
            f"{version}: <code>{escape(config[f'experiment_id_{version}'])}</code> ({side.prefix} scores)"
            + (f" — {escape(config[f'description_{version}'])}" if config[f"description_{version}"] else "")
            for version, side in (("old", self.old), ("new", self.new))
        ]
        header = (
            f"{'<br>'.join(described)}<br>Written by pdmetrics {escape(package_version('pdmetrics'))}, "
            "following rsmcompare's report, with paired intervals and tests."
        )
        return page_html(title, header, bodies)

    # helpers ------------------------------------------------------------------------------
    def table(self, name: str, heading: str | None = None, note: str = "") -> str:
        table = self.tables.get(name)
        parts = [self.h3(heading)] if heading else []
        if table is None:
            return "".join(parts) + f'<p class="note">{_NOT_AVAILABLE}</p>' if heading else ""
        index = not isinstance(table.index, pd.RangeIndex)
        return "".join(parts) + note + table_html(table, index=index)

    def tables_of(self, section: str) -> list[str]:
        return [self.table(name, heading) for name, heading in FEATURE_TABLES[section] if name in self.tables]

    # sections ---------------------------------------------------------------------------
    def feature_descriptives(self) -> str:
        parts = self.tables_of("feature_descriptives")
        table = self.tables.get("feature_descriptives")
        if table is not None:
            counts = [table.loc[(table["version"] == v).to_numpy(), "N"].dropna() for v in ("old", "new")]
            if all(len(c) for c in counts) and counts[0].iloc[0] != counts[1].iloc[0]:
                parts.insert(
                    0,
                    f'<p class="note">The training sets differ in size: old N = {int(counts[0].iloc[0]):,}, '
                    f"new N = {int(counts[1].iloc[0]):,}.</p>",
                )
        parts.append(self.version_correlations())
        return "".join(part for part in parts if part) or f"<p>{_NOT_AVAILABLE}</p>"

    def version_correlations(self) -> str:
        table = self.tables.get("feature_correlations")
        if table is None:
            return ""
        parts = [
            self.h3("Correlations between feature values between old and new model"),
            "<p>For each feature both experiments use: its correlation with the human score in each "
            "experiment's training set and the correlation of its old and new values, on the responses both "
            "training sets hold (<code>train_features</code>, joined on the response id).</p>",
        ]
        attrs = self.table_facts.get("feature_correlations", {})
        if "reason" in attrs:
            return "".join(parts) + f'<p class="note">Not computed: {escape(attrs["reason"])}.</p>'
        dropped = attrs.get("dropped", {})
        left = [
            f"{n:,} responses of the {version} training set are not in the {other} one"
            for version, other in (("old", "new"), ("new", "old"))
            if (n := dropped.get(version, 0))
        ]
        if left:
            parts.append(f'<p class="note">{"; ".join(left)}: left out of this table.</p>')
        if attrs.get("undefined"):
            named = ", ".join(escape(repr(name)) for name in attrs["undefined"])
            parts.append(
                f'<p class="note">{named}: a missing or non-numeric value in a training set, so its '
                "correlations are not defined (NaN).</p>"
            )
        return "".join(parts) + table_html(table)

    def features_by_group(self) -> str:
        parts = []
        for group in self.config["subgroups"]:
            drawn = [(side, self.boxes.get((side.version, group))) for side in (self.old, self.new)]
            if all(boxes is None for _, boxes in drawn):
                continue
            parts += [
                self.h3(f"Feature value box plots by {group}"),
                "<p>The training set's feature values (before transformation and truncation) of each "
                f"{escape(group)} group, the old model's first; the dashed lines mark the truncation "
                "thresholds (mean ± 4 SD).</p>",
            ]
            for side, boxes in drawn:
                experiment_id = self.config[f"experiment_id_{side.version}"]
                if boxes is None:
                    parts.append(
                        f'<p class="note">This figure is not available for the {side.version} model.</p>'
                    )
                elif isinstance(boxes, str):
                    parts.append(f'<p class="note">{escape(boxes)}</p>')
                else:
                    parts.append(self.box_figure(side.version, experiment_id, group, *boxes))
        return "".join(parts) or f"<p>{_NOT_AVAILABLE}</p>"

    def box_figure(self, version: str, experiment_id: str, group: str, stats, fliers) -> str:
        features = list(dict.fromkeys(stats["feature"].astype(str)))
        labels = list(dict.fromkeys(stats["box"].astype(str)))
        width = max(300, 70 + 46 * len(labels))
        height = 250 + figures.category_label_room(width, labels)
        columns = 2 if len(features) > 1 else 1
        panels = []
        for k, feature in enumerate(features):
            rows = stats[(stats["feature"].astype(str) == feature).to_numpy()]
            rows = rows.set_index(rows["box"].astype(str)).reindex(labels)
            points = fliers[(fliers["feature"].astype(str) == feature).to_numpy()]
            grouped = points.groupby(points["box"].astype(str))["value"].agg(list)
            thresholds = rows[["threshold_low", "threshold_high"]].dropna().to_numpy()
            box = ((k % columns) * width, (k // columns) * height, width, height)
            panels.append(
                figures.box_panel(
                    box,
                    labels,
                    {key: rows[key].to_numpy() for key in ("low", "q1", "median", "q3", "high")},
                    [grouped.get(label, []) for label in labels],
                    title=f"{feature} by {group}",
                    reference_lines=list(thresholds[0]) if len(thresholds) else (),
                )
            )
        svg = figures.svg(
            columns * width,
            -(-len(features) // columns) * height,
            panels,
            label=f"Feature values by {group}, {version} model",
        )
        return self.figure(
            f"feature-boxes-{version}-{group}",
            svg,
            f"Feature values by {escape(group)}: the {version} model ({escape(experiment_id)}). Boxes: the "
            "quartiles and the median; whiskers: the furthest values within 1.5 interquartile ranges of the "
            "box; circles: the values beyond them.",
        )

    def preprocessed_features(self) -> str:
        parts = []
        if "cors_processed" in self.tables:
            old, new = self.config["experiment_id_old"], self.config["experiment_id_new"]
            heading = (
                f"Differences in inter-feature correlations between the old model ({old}) and the new model"
            )
            parts.append(self.table("cors_processed", f"{heading} ({new})"))
        parts += self.tables_of("preprocessed_features")
        return "".join(parts) or f"<p>{_NOT_AVAILABLE}</p>"

    def preprocessed_features_by_group(self) -> str:
        parts = []
        for group in self.config["subgroups"]:
            for name, what in (
                (f"margcor_score_by_{group}", "marginal"),
                (f"pcor_score_by_{group}", "partial"),
            ):
                if name in self.tables:
                    parts.append(self.table(name, f"Human-feature {what} correlations by {group}"))
        return "".join(parts) or f"<p>{_NOT_AVAILABLE}</p>"

    def model(self) -> str:
        parts = [self.table("betas", "Standardized & relative coefficients")]
        betas = self.tables.get("betas")
        if betas is not None and "standardized" in betas:
            features = list(dict.fromkeys(betas.index.astype(str)))
            series = {
                f"{version} ({self.config[f'experiment_id_{version}']})": _column(
                    betas, version, "standardized", features
                )
                for version in ("old", "new")
            }
            width = max(640, 80 + 70 * len(features))
            svg = figures.legend_chart(
                width,
                300 + figures.category_label_room(width, features),
                lambda box: figures.bar_panel(box, features, series, y_title="standardized coefficient"),
                list(series),
                label="Standardized coefficients, old and new model",
            )
            parts.append(
                self.figure(
                    "betas",
                    svg,
                    "Standardized coefficient of each feature in the old model and in the new one (none "
                    "where a model does not use the feature).",
                )
            )
        if "model_fit" in self.tables:
            parts.append(self.table("model_fit", "Model fit for old and new model"))
        return "".join(parts)

    def pca(self) -> str:
        if "pca" not in self.tables:
            return '<p class="note">This information is not available for the new model.</p>'
        experiment_id = self.config["experiment_id_new"]
        parts = [
            self.h3(f"Principal component analysis for the new model ({experiment_id})"),
            "<p>rsmcompare shows the new model's principal components only (their signs are arbitrary, so "
            "they are not subtracted).</p>",
        ]
        variance = self.tables.get("pcavar")
        if variance is not None and "Eigenvalues" in variance.index:
            components = [str(c) for c in variance.columns]
            values = {"eigenvalue": pd.to_numeric(variance.loc["Eigenvalues"], errors="coerce").tolist()}
            svg = figures.svg(
                max(330, 80 + 50 * len(components)),
                260,
                [
                    figures.bar_panel(
                        (0, 0, max(330, 80 + 50 * len(components)), 260),
                        components,
                        values,
                        x_title="principal component",
                        y_title="eigenvalue",
                    )
                ],  # fmt: skip
                label="Eigenvalues of the principal components, new model",
            )
            parts.append(
                self.figure("pca-scree", svg, "Eigenvalue of each principal component (scree plot).")
            )
        parts.append(table_html(self.tables["pca"]))
        if variance is not None:
            parts.append(table_html(variance))
        return "".join(parts)

    def consistency(self) -> str:
        if "consistency" not in self.tables:
            return f"<p>{_NOT_AVAILABLE}</p>"
        parts = [
            self.table("consistency", "Human-human agreement"),
            self.table(
                "degradation",
                "Degradation",
                "<p>For each score type: the human-human agreement (H-H), the human-machine agreement "
                "(H-M) and their difference (diff).</p>",
            ),
            self.table(
                "disattenuated_correlations",
                "Disattenuated correlations",
                f"<p>The {self.old.prefix} scores of the old experiment and the {self.new.prefix} scores of "
                "the new one.</p>",
            ),
        ]
        for group in self.config["subgroups"]:
            name = f"disattenuated_correlations_by_{group}"
            if name in self.tables:
                parts.append(self.table(name, f"Disattenuated correlations by {group}"))
        return "".join(parts)

    def score_distributions(self) -> str:
        parts = [self.table("score_dist", "Score distribution (percentage)")]
        table = self.tables.get("score_dist")
        if table is not None:
            scores = list(dict.fromkeys(table.index.astype(str)))
            values = {
                f"human ({version})": _column(table, version, "human", scores) for version in ("old", "new")
            }
            values = {"human": values["human (old)"]}
            values |= {
                f"{version} system": _column(table, version, "sys", scores) for version in ("old", "new")
            }
            svg = figures.legend_chart(
                640,
                300,
                lambda box: figures.bar_panel(box, scores, values, x_title="score", y_title="% of responses"),
                list(values),
                label="Score distributions, old and new",
            )
            parts.append(
                self.figure(
                    "score-distributions",
                    svg,
                    "Percentage of responses at each score: the human scores (of the old experiment) and the "
                    "trimmed, rounded system scores of each experiment.",
                )
            )
        matrices = self.tables.get("confMatrix")
        if matrices is not None:
            for version, what in (
                ("old", self.config["experiment_id_old"]),
                ("new", self.config["experiment_id_new"]),
            ):
                block = matrices[matrices["version"] == version].drop(columns="version")
                if len(block):
                    parts += [
                        self.h3(f"Confusion matrix (human-machine) for {version} model ({what})"),
                        table_html(block),
                    ]
            block = matrices[matrices["version"] == "change"].drop(columns="version")
            if len(block):
                parts += [self.h3("Confusion matrix (human-machine) (change)"), table_html(block)]
            parts.append(
                '<p class="note">Rows are the human scores, columns the system scores (rsmcompare labels '
                "them the other way round).</p>"
            )
        return "".join(parts)

    def evaluation(self) -> str:
        parts = []
        overview = self.tables.get("eval_overview")
        old_n, new_n = (
            side.short["N"].iloc[0] if side.short is not None and len(side.short) else None
            for side in (self.old, self.new)
        )
        if old_n is not None and new_n is not None and old_n != new_n:
            parts.append(
                f'<p class="note">The evaluation sets differ in size: old N = {int(old_n):,}, new N = '
                f"{int(new_n):,}.</p>"
            )
        parts.append(self.table("eval_overview", "Overall association statistics (human-machine)"))
        if overview is not None:
            parts.append(self.paired(None))
        for group in self.config["subgroups"]:
            if f"eval_by_{group}" not in self.tables:
                continue
            parts.append(self.table(f"eval_by_{group}", f"Association statistics (human-machine) by {group}"))
            parts.append(self.paired(group))
        for group in self.config["subgroups"]:
            if f"eval_by_{group}_m_sd" in self.tables:
                parts.append(
                    self.table(f"eval_by_{group}_m_sd", f"Descriptive holistic score statistics by {group}")
                )
        for group in self.config["subgroups"]:
            if f"eval_by_{group}" in self.tables:
                parts.append(self.h3(f"Plots of association statistics by {group}"))
                parts.append(self.group_bars(group))
        return "".join(parts)

    def paired(self, group) -> str:
        table = self.tables["paired_comparison"]
        facts = self.facts
        if group is not None:  # the groups of one subgroup column (the pooled rows are shown above)
            if "by" not in table:
                return ""
            rows = table[((table["by"] == group) & (table["group"] != POOLED_LABEL)).to_numpy()]
            if not len(rows):
                return ""
            return comparison_html(rows.reset_index(drop=True), writer=self, heading="Paired comparison")
        rows = table
        if "by" in rows:  # the pooled rows (repeated for each subgroup column: the first's)
            first = rows["by"].iloc[0] if len(rows) else None
            rows = rows[((rows["by"] == first) & (rows["group"] == POOLED_LABEL)).to_numpy()]
            rows = rows.drop(columns=["by", "group"]).reset_index(drop=True)
        parts = [
            "<p>rsmcompare subtracts the two experiments' tables. Where both experiments scored the "
            "same responses, pdmetrics also compares them <em>paired</em>: the responses both evaluated "
            "are joined on their id and each metric's difference (new minus old) gets "
            f"{_paired_methods(self.options)} as in the table above.</p>",
            self.join_note(facts),
        ]
        return "".join(parts) + comparison_html(rows, writer=self, heading="Paired comparison")

    def join_note(self, facts) -> str:
        text = (
            f"The old experiment evaluated {facts['old']:,} responses, the new one {facts['new']:,}; "
            f"{facts['common']:,} are in both."
        )
        if facts["only_old"] or facts["only_new"]:
            text += (
                f" <strong>The responses differ</strong>: {facts['only_old']:,} only in the old experiment, "
                f"{facts['only_new']:,} only in the new one. The paired comparison uses the common responses "
                "only, so its two values differ from the experiments' own tables above."
            )
        if not len(self.tables["paired_comparison"]):
            text += " No response is in both with the same human score: there is nothing to compare paired."
        if facts["human_differs"]:
            text += (
                f" {facts['human_differs']:,} common responses have different human scores in the two "
                "experiments and are left out."
            )
        if facts.get("no_groups"):
            absent = ", ".join(escape(repr(name)) for name in facts["no_groups"])
            text += f" Neither experiment's test_metadata has the subgroups {absent}: none compared by them."
        return f'<p class="note">{text}</p>'

    def group_bars(self, group) -> str:
        table = self.tables[f"eval_by_{group}"]
        labels = list(dict.fromkeys(table.index.astype(str)))
        metrics = ("Pearson(b)", "QWK(b)", "K(br)", "R2(b)", "RMSE(b)", "Agmt.(br)")
        width = max(330, 60 + 46 * len(labels))
        height = 250 + figures.category_label_room(width, labels)
        panels = []
        for k, metric in enumerate(metrics):
            series = {version: _column(table, version, metric, labels) for version in ("old", "new")}
            box = ((k % 2) * width, 24 + (k // 2) * height, width, height)
            panels.append(figures.bar_panel(box, labels, series, title=f"{metric} by {group}"))
        svg = figures.svg(
            2 * width,
            24 + 3 * height,
            [*panels, figures.legend(50, 16, ["old", "new"], width=2 * width)],
            label=f"Association statistics by {group}, old and new",
        )
        return self.figure(
            f"eval-bars-{group}",
            svg,
            f"Association statistics of each {escape(group)} group (All data first): the old experiment's "
            "and "
            "the new one's.",
        )

    def true_score_evaluation(self) -> str:
        if "true_score_eval" not in self.tables:
            return f"<p>{_NOT_AVAILABLE}</p>"
        return (
            "<p>How well the system scores predict the <em>true</em> scores (the scores without "
            "measurement error), estimated from the double-scored responses: the variance of the raters' "
            "errors, the true score variance, the mean squared error and the proportional reduction in mean "
            "squared error (PRMSE) of predicting the true score with the system score.</p>"
            + self.table("true_score_eval")
        )

    def notes(self) -> str:
        return (
            "<ul><li>(br) stands for bounded and rounded scores (<code>trim_round</code> in the experiments' "
            "reports), (b) for bounded scores (<code>trim</code>).</li>"
            "<li><code>change</code> is the new value minus the old one.</li>"
            "<li>The paired comparison is pdmetrics': rsmcompare has none. Its intervals and p-values are "
            "about the difference on these responses; a difference whose interval lies within a tolerance "
            "you set in advance is too small to act on, however small its p-value.</li>"
            "<li>Each table of this report is written to <code>output/&lt;comparison_id&gt;_&lt;table&gt;.csv"
            "</code>.</li></ul>"
        )

    def sysinfo(self) -> str:
        return sysinfo_html()


def _paired_methods(options: dict) -> str:
    """How the paired comparison's intervals and p-values are made (a sentence's end)."""
    adjusted = (
        f"; the p-values adjusted by {escape(options['correction'])} over the whole table (p_adjusted)"
        if options["correction"]
        else ""
    )
    return (
        f"a {100 * options['confidence']:g}% interval and the p-value of no difference: Williams' t for "
        "<code>corr</code> (the two correlations share the human score), McNemar's test for "
        f"<code>exact_agr</code>, and a paired bootstrap ({options['n_resamples']:,} resamples, seed "
        f"{escape(options['random_state'])}) for the rest{adjusted}. <code>corr</code>, "
        "<code>wtkappa</code>, <code>R2</code>, <code>RMSE</code> and <code>SMD</code> are computed on the "
        "trimmed scores (b), <code>kappa</code>, <code>exact_agr</code> and <code>adj_agr</code> on the "
        "trimmed and rounded ones (br),"
    )


def _column(table: pd.DataFrame, version: str, column: str, labels) -> list[float]:
    rows = table[(table["version"] == version).to_numpy()]
    values = dict(zip(rows.index.astype(str), pd.to_numeric(rows[column], errors="coerce").astype(float)))
    return [values.get(label, math.nan) for label in labels]


class SummaryPage(PageWriter):
    """rsmsummarize's report: its sections, from the summary tables."""

    def __init__(self, config, experiments, tables, missing_trims, files, paired=None) -> None:
        super().__init__()
        self.config, self.experiments, self.tables = config, experiments, tables
        self.missing_trims, self.files = missing_trims, files
        self.paired_facts = paired  # the facts and options of the paired comparison

    def page(self, sections) -> str:
        bodies = self.sections(sections, SUMMARY_TITLES)
        config = self.config
        listed = "".join(
            f"<br><b>{escape(item.name)}</b>"
            + (f" — {escape(item.config.get('description'))}" if item.config.get("description") else "")
            for item in self.experiments
        )
        header = (
            (f"{escape(config['description'])}<br>" if config["description"] else "")
            + f"The report compares {len(self.experiments)} models:{listed}<br>Written by pdmetrics "
            f"{escape(package_version('pdmetrics'))}, following rsmsummarize's report."
        )
        return page_html(f"Summary report: {config['summary_id']}", header, bodies)

    def missing(self) -> str:
        return '<p class="note">No information available for any of the models.</p>'

    def evaluation(self) -> str:
        table = self.tables.get("eval_short")
        if table is None:
            return self.missing()
        parts = [
            "<p>The standard association metrics between the human scores and each model's scores, on its "
            "evaluation set; the scores are truncated to the <code>truncation range</code>. Scaled scores "
            "are re-scaled to the human scores' mean and standard deviation.</p>"
        ]
        if self.missing_trims:
            parts.append(
                '<p class="note">The truncation range of some models could not be found (no trim_min or '
                "trim_max in their postprocessing parameters or configuration): shown as ?.</p>"
            )
        descriptives = [
            "N",
            "system score type",
            "truncation range",
            "h_mean",
            "h_sd",
            "sys_mean",
            "sys_sd",
            "SMD",
        ]
        parts += [
            self.h3("Descriptive holistic score statistics"),
            "<p>Distributions of the human and system scores; SMD below −0.15 or above 0.15 is "
            '<span class="highlight">highlighted</span>.</p>',
            table_html(_present(table, descriptives), highlight={"SMD": (-0.15, 0.15, False)}),
        ]
        wtkappa = "wtkappa" if "wtkappa" in table else "wtkappa (rounded)"
        association = ["N", "system score type", "corr", "R2", "RMSE", wtkappa, "kappa (rounded)",
                       "exact_agr (rounded)", "adj_agr (rounded)"]  # fmt: skip
        parts += [
            self.h3("Association statistics"),
            "<p>(rounded): on the scores truncated, then rounded.</p>",
            table_html(_present(table, association)),
        ]
        metrics = [name for name in ("corr", wtkappa, "R2", "kappa (rounded)") if name in table]
        if metrics and len(table) > 0:
            labels = [str(label) for label in table.index]
            width = max(640, 80 + 90 * len(metrics) * max(1, len(labels)) // 2)
            series = {label: [float(pd.to_numeric(table[m], errors="coerce").iloc[i]) for m in metrics]
                      for i, label in enumerate(labels)}  # fmt: skip
            svg = figures.legend_chart(
                width,
                300,
                lambda box: figures.bar_panel(box, metrics, series, y_title="value"),
                labels,
                label="Association statistics of each model",
            )
            parts.append(self.figure("association", svg, "Association statistics of each model."))
        return "".join(parts) + self.paired()

    def paired(self) -> str:
        table, facts = self.tables.get("paired_comparison"), self.paired_facts
        if table is None or facts is None:
            return ""
        options, names = facts["options"], list(facts["counts"])
        against = (
            f"each experiment against the first, <b>{escape(names[0])}</b> (system minus baseline)"
            if options["pairs"] == "baseline" and names
            else "every pair of experiments (the later minus the earlier)"
        )
        parts = [
            self.h3("Paired comparison on the common responses"),
            "<p>rsmsummarize puts the experiments' tables side by side, each on the responses it evaluated. "
            "pdmetrics also compares them <em>paired</em>: the responses every experiment evaluated are "
            f"joined on their id and, for {against}, each metric's difference gets "
            f"{_paired_methods(options)} each on the scores its experiment's eval_short uses (the system "
            "score type above).</p>",
            self.summary_join_note(facts),
        ]
        if len(table):
            parts.append(comparison_html(table, writer=self, heading="Paired comparison"))
        return "".join(parts)

    def summary_join_note(self, facts) -> str:
        counts = [f"{escape(name)} {n:,}" for name, n in facts["counts"].items()]
        text = ""
        if counts:
            text = f"Responses evaluated: {', '.join(counts)}; {facts['common']:,} are in all of them."
            if len(set(facts["counts"].values()) | {facts["common"]}) > 1:
                text += (
                    " <strong>The responses differ</strong>: the paired comparison uses the common "
                    "responses only, so its values differ from the experiments' own table above."
                )
        for a, b in facts["disjoint"]:
            text += f" {escape(a)} and {escape(b)} share no response."
        if facts["human_differs"]:
            text += (
                f" {facts['human_differs']:,} common responses have different human scores in the "
                "experiments and are left out."
            )
        if facts["left_out"]:
            text += f" Left out (no pred_processed table): {', '.join(map(escape, facts['left_out']))}."
        if not len(self.tables["paired_comparison"]):
            text += " There is nothing to compare paired" + (
                ": fewer than two experiments have their responses' scores."
                if not facts["counts"]
                else ": no response is in all the experiments with the same human score."
            )
        return f'<p class="note">{text.strip()}</p>'

    def true_score_evaluation(self) -> str:
        table = self.tables.get("true_score_eval")
        if table is None:
            return self.missing()
        columns = ["N", "N raters", "N single", "N multiple", "Variance of errors", "True score var",
                   "MSE true", "PRMSE true"]  # fmt: skip
        return (
            self.h3("Proportional reduction in mean squared error (PRMSE)")
            + "<p>How well each model's scores predict the <em>true</em> scores (the scores without "
            "measurement error), estimated from the double-scored responses: the variance of the raters' "
            "errors, the true score variance, the mean squared error and the PRMSE of predicting the true "
            "score.</p>" + table_html(_present(table, columns))
        )

    def model(self) -> str:
        parts = []
        for name, heading in (("model_summary", "Model summary"), ("betas", "Standardized coefficients"),
                              ("model_fit", "Model fit")):  # fmt: skip
            if name in self.tables:
                parts += [self.h3(heading), table_html(self.tables[name])]
        return "".join(parts) or self.missing()

    def preprocessed_features(self) -> str:
        parts = []
        headings = {
            "margcor_score_all_data": "Marginal correlations against score",
            "pcor_score_all_data": "Partial correlations after controlling for all other variables",
            "pcor_score_no_length_all_data": "Partial correlations after controlling for length",
        }
        for name, heading in headings.items():
            if name in self.tables:
                parts += [self.h3(heading), table_html(self.tables[name])]
        return "".join(parts) or self.missing()

    def intermediate_file_paths(self) -> str:
        rows = pd.DataFrame(
            {
                "file": [str(path) for path in self.files],
                "content": [
                    next(
                        (text for key, text in _DESCRIPTIONS.items() if Path(path).stem.endswith(f"_{key}")),
                        "",
                    )
                    for path in self.files
                ],
            }
        )
        return "<p>The files this run wrote (not those of the experiments it summarizes).</p>" + table_html(
            rows, index=False
        )

    def sysinfo(self) -> str:
        return sysinfo_html()


def _present(table: pd.DataFrame, columns) -> pd.DataFrame:
    return table[[name for name in columns if name in table.columns]]

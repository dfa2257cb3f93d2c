"""Command line: ``pdmetrics demo``, ``pdmetrics evaluate`` and ``pdmetrics rsmeval``."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
import threading
import time
import warnings
from pathlib import Path

import pandas as pd

import pdmetrics
from pdmetrics._files import check_file_names, check_free, check_name_part, output_run, unfinished_marker
from pdmetrics.datasets import simulate_essays, simulate_scores
from pdmetrics.errors import InvalidInputError, PdmetricsError, PdmetricsWarning
from pdmetrics.io import read_table
from pdmetrics.rsmeval.config import FILE_FORMATS
from pdmetrics.rsmeval.html_page import choose_sections
from pdmetrics.rsmeval.reporting import report as rsmeval_report
from pdmetrics.rsmeval.responses_input import ENGINES, is_pattern, read_responses
from pdmetrics.rsmeval.rsmcompare import run_rsmcompare
from pdmetrics.rsmeval.rsmsummarize import run_rsmsummarize
from pdmetrics.rsmeval.run import run_rsmeval

#: Inputs with at least this many rows get progress messages on stderr.
LARGE_INPUT = 100_000


def _show(title: str, table: pd.DataFrame) -> None:
    print(f"\n== {title}")
    print(table.round(3).to_string(index=False))


def demo(rows: int, seed: int) -> int:
    """Simulate double-scored essays, post-process the system score, print the tables."""
    if rows < 2:
        raise PdmetricsError(
            f"--rows {rows}: the demo needs at least 2 responses (one of them double-scored)."
        )
    df = simulate_scores(rows, seed=seed)
    print(
        f"pdmetrics {pdmetrics.__version__} demo: {len(df):,} simulated responses "
        f"({int(df['sc2'].notna().sum()):,} double-scored), subgroup column 'L1'."
    )
    print("df.scoring.postprocess(system='raw', trim_min=1, trim_max=6)")
    scored = df.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    systems = ["raw", "raw_trim", "raw_trim_round"]
    _show(
        "eval: df.scoring.evaluate(human='sc1', system=['raw', 'raw_trim', 'raw_trim_round'])",
        scored.scoring.evaluate(human="sc1", system=systems),
    )
    _show(
        "consistency: df.scoring.consistency(human='sc1', second_human='sc2')",
        scored.scoring.consistency(human="sc1", second_human="sc2"),
    )
    matrix = scored.scoring.confusion_matrix(human="sc1", system="raw_trim_round").pivot(
        index="human_score", columns="system_score", values="N"
    )
    print("\n== confMatrix (rows: human score, columns: system score)")
    print(matrix.to_string())
    _show(
        "score_dist (percent of responses)",
        scored.scoring.score_distribution(human="sc1", system="raw_trim_round"),
    )
    _show(
        "eval_by_L1: df.scoring.evaluate(..., by='L1') (raw_trim)",
        scored.scoring.evaluate(human="sc1", system="raw_trim", by="L1")[
            ["group", "N", "corr", "wtkappa", "SMD", "DSM"]
        ],
    )
    report = df.scoring.report(human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6)
    print(
        f"\nThe whole rsmeval run in one call: df.scoring.report(human='sc1', system='raw', "
        f"second_human='sc2', by='L1', trim_min=1, trim_max=6) -> {len(report)} RSMTool tables:"
    )
    print("  " + ", ".join(report))
    _show("true_score_eval", report["true_score_eval"])
    _show("fairness_metrics_by_L1", report["fairness_metrics_by_L1"])
    print(
        "\nThe same from a file (report.to_csv writes rsmeval's files): pdmetrics evaluate FILE.csv "
        "--human sc1 --system raw --second-human sc2 --group L1 --trim-min 1 --trim-max 6 --out results/"
    )
    _on_the_fly_demo(max(rows, 200), seed)
    return 0


def _on_the_fly_demo(rows: int, seed: int) -> None:
    """Attali (2007): a predetermined-parameter model scaled on 30 essays vs a fully estimated one."""
    essays = simulate_essays(rows, seed=seed)
    features = [c for c in essays.columns if c.startswith("f")]
    benchmark, rest = essays.iloc[:30], essays.iloc[30:]
    ep = rest.scoring.fit_ep(features=features, human=["h1", "h2"])
    pp = benchmark.scoring.fit_pp(model=ep, human=["h1", "h2"])  # same weights, scaling from 30 essays
    scored = pp.predict(ep.predict(rest, name="EP"), name="PP")
    scored = scored.scoring.postprocess(system=["EP", "PP"], trim_min=1, trim_max=6)
    print(
        f"\nOn-the-fly scoring (Attali 2007), {len(essays):,} simulated essays with {len(features)} "
        "features: an estimated-parameter model (fit_ep) vs the same weights scaled on 30 benchmark "
        "essays (fit_pp)"
    )
    _show(
        "eval against h1 (rounded scores)",
        scored.scoring.evaluate(human="h1", system=["EP_trim_round", "PP_trim_round"])[
            ["system", "N", "sys_mean", "sys_sd", "corr", "kappa", "wtkappa", "exact_agr"]
        ],
    )


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()

    def __call__(self, message: str) -> None:
        if self.enabled:
            print(f"[{time.perf_counter() - self.start:6.1f} s] {message}", file=sys.stderr, flush=True)


def _training_frame(path: Path, human: str, system: str) -> pd.DataFrame:
    """The --scale-with training file, checked for the human and system columns.

    Without those columns, rsmeval's own layout (``sc1`` and ``prediction``) is accepted.
    """
    train = read_table(path)
    fallback = {
        rsmeval: name
        for name, rsmeval in ((human, "sc1"), (system, "prediction"))
        if name not in train.columns and rsmeval in train.columns
    }
    if fallback:
        train = train.rename(columns=fallback)
    missing = [name for name in (human, system) if name not in train.columns]
    if missing:
        raise PdmetricsError(
            f"--scale-with {path}: no column {', '.join(repr(m) for m in missing)}; the "
            f"training file needs the same --human ({human!r}) and --system ({system!r}) "
            f"columns as the input (or rsmeval's 'sc1' and 'prediction'). "
            f"It has: {', '.join(repr(c) for c in train.columns)}."
        )
    return train


def _flag_value(text: str):
    """A ``--flag`` value: a number when it reads as one (as in an rsmeval config), else text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _flags(items) -> dict | None:
    """``--flag COL=V1,V2`` (repeatable) as report()'s ``flag={COL: [V1, V2]}``."""
    if not items:
        return None
    flags = {}
    for item in items:
        column, sep, values = item.partition("=")
        if not sep or not column or not values:
            raise PdmetricsError(f"--flag {item!r}: write COLUMN=VALUE[,VALUE...], e.g. --flag ADVISORY=0.")
        flags[column] = [_flag_value(value.strip()) for value in values.split(",")]
    return flags


def evaluate(args: argparse.Namespace) -> int:
    """Read a file, run the whole RSMTool evaluation, write the tables, print the headline."""
    path = Path(args.file)
    name = _input_name(args.file)
    prefix = args.prefix if args.prefix is not None else Path(name).stem
    _check_names(args, prefix)
    if args.out == "":
        raise PdmetricsError("--out '': give the folder to write the files in, e.g. --out results.")
    check_free(args.out, prefix, "evaluate", "--out", "--prefix")  # another run writing there: say so now
    text = [name for name in (args.id, args.candidate) if name] + (args.group or [])
    frame = read_responses(args.file, text_columns=text, engine=args.engine)
    on_dask = args.engine == "dask"
    progress = _Progress(on_dask or len(frame) >= LARGE_INPUT)
    progress(
        f"{frame.npartitions} partitions of {args.file} (dask)"
        if on_dask
        else f"read {len(frame):,} rows from {path}"
    )
    scale_with = args.scale_with
    if scale_with not in (None, "asis", "raw"):
        scale_with = _training_frame(Path(scale_with), args.human, args.system)
    given = {
        "id": args.id,
        "candidate": args.candidate,
        "min_items_per_candidate": args.min_items_per_candidate,
        "flag": _flags(args.flag),
        "min_n_per_group": args.min_n_per_group,
    }
    given = {keyword: value for keyword, value in given.items() if value is not None}
    if on_dask:
        given["row_numbers"] = args.id is None  # responses named by their row in the whole input, as pandas
    with warnings.catch_warnings(record=True) as caught, _progress_bar(on_dask):
        warnings.simplefilter("always", PdmetricsWarning)
        report = rsmeval_report(
            frame,
            **given,
            human=args.human,
            system=args.system,
            second_human=args.second_human,
            by=args.group or None,
            trim_min=args.trim_min,
            trim_max=args.trim_max,
            trim_tolerance=args.trim_tolerance,
            scale_with=scale_with,
            exclude_zero=not args.keep_zeros,
            layout=args.layout,
        )
    for warning in caught:
        if issubclass(warning.category, pdmetrics.ExcludedRowsWarning):
            print(f"note: {warning.message}", file=sys.stderr)
    progress(f"computed {len(report)} tables")
    sections = [name.strip() for name in args.sections.split(",")] if args.sections else None
    # a wrong --sections or --file-format, a name too long: refused before anything is written
    choose_sections(report, sections)
    report._writable(
        prefix, args.file_format, option="--prefix", group_option="--group", format_option="--file-format"
    )
    check_file_names([f"{prefix}_report.html"], "--prefix", prefix)
    # the marker <prefix>.pdmetrics-incomplete stays in --out until the last file is in place
    with output_run(args.out, prefix, "evaluate", option="--out", prefix_option="--prefix") as run:
        for note in run.notes:
            print(f"note: {note}", file=sys.stderr)
        with _progress_bar(on_dask):  # on dask, the per-response files: one more pass over the partitions
            written = report.write(args.out, prefix=prefix, file_format=args.file_format)
        page = Path(args.out) / f"{prefix}_report.html"
        report.to_html(page, sections=sections, title=name, files=written)
        written.append(page)
    _finished()
    if run.removed:
        print(
            f"note: removed {len(run.removed)} files an earlier run with --prefix {prefix} wrote in "
            f"{args.out} and this run did not write again: {', '.join(path.name for path in run.removed)}",
            file=sys.stderr,
        )
    progress(f"wrote {len(written)} files to {args.out}")
    print(
        f"pdmetrics evaluate: {report.info['n_used']:,} of {report.info['n_input']:,} responses; "
        f"{len(written)} files written to {args.out}"
    )
    _show("eval", report["eval"])
    if "consistency" in report:
        _show("consistency", report["consistency"])
    if "true_score_eval" in report:
        _show("true_score_eval", report["true_score_eval"])
    for group in report.groups:
        _show(f"fairness_metrics_by_{group}", report[f"fairness_metrics_by_{group}"])
    return 0


def _check_names(args: argparse.Namespace, prefix: str) -> None:
    """``--prefix`` (or the input's name) and ``--group`` name files: refuse, before anything is
    read or written, a name that would put a file outside ``--out``."""
    option = "--prefix" if args.prefix is not None else "--prefix (default: the input's name)"
    check_name_part(
        prefix,
        option,
        "the prefix starts every file name; give a plain name, e.g. --prefix run1.",
        whole=True,
    )
    for group in args.group or []:
        check_name_part(
            group,
            "--group",
            f"the subgroup column {group!r} names files (<prefix>_eval_by_<column>.csv, ...); rename the "
            "column in the input file.",
        )


def _input_name(text: str) -> str:
    """The input's name (the report's title, the files' default prefix): the file's or the
    folder's name; for a glob pattern, the name of its folder."""
    path = Path(text)
    if is_pattern(text):
        folders = [part for part in path.parent.parts if not is_pattern(part)]
        return folders[-1] if folders else "responses"
    return path.name


@contextlib.contextmanager
def _progress_bar(on_dask: bool):
    """dask's threaded scheduler, with its progress bar on stderr, while a dask computation
    runs (nothing with pandas)."""
    if not on_dask:
        yield
        return
    import dask  # optional and slow to import
    from dask.diagnostics import ProgressBar

    with dask.config.set(scheduler="threads"), ProgressBar(out=sys.stderr):
        yield


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pdmetrics", description="Evaluate automated scores with pandas.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="evaluate simulated double-scored essays")
    demo_parser.add_argument("--rows", type=int, default=5000, help="number of simulated responses")
    demo_parser.add_argument("--seed", type=int, default=0, help="random seed")
    run = commands.add_parser("evaluate", help="RSMTool's evaluation (rsmeval) of a file of responses")
    run.add_argument(
        "file",
        help="CSV, TSV, xlsx, jsonlines (nested too) or parquet file, one row per response; or a folder "
        "or a quoted glob ('responses/*.parquet') of parquet files",
    )
    run.add_argument(
        "--engine",
        choices=ENGINES,
        default="pandas",
        help="pandas (default: every row in memory) or dask (parquet, partition by partition, with a "
        'progress bar; pip install "pdmetrics[dask]")',
    )
    run.add_argument("--human", required=True, help="human score column")
    run.add_argument("--system", required=True, help="raw system score column")
    run.add_argument("--second-human", help="second human score column")
    run.add_argument("--group", action="append", help="subgroup column (repeat for several)")
    run.add_argument("--trim-min", type=float, required=True, help="lowest score point")
    run.add_argument("--trim-max", type=float, required=True, help="highest score point")
    run.add_argument("--trim-tolerance", type=float, default=0.4998)
    run.add_argument(
        "--scale-with",
        help="'asis', 'raw' (rsmeval's: the scale scores equal the raw ones) or a training CSV with the "
        "same human/system columns (or rsmeval's 'sc1' and 'prediction')",
    )
    run.add_argument("--keep-zeros", action="store_true", help="keep human scores of 0 (exclude_zero=False)")
    run.add_argument("--id", help="response id column (repeated ids are refused, as rsmeval)")
    run.add_argument("--candidate", help="candidate (test taker) column")
    run.add_argument(
        "--min-items-per-candidate",
        type=int,
        help="leave out candidates with fewer responses (needs --candidate)",
    )
    run.add_argument(
        "--flag",
        action="append",
        metavar="COLUMN=V1,V2",
        help="keep only rows whose COLUMN is one of the values (repeat for several columns)",
    )
    run.add_argument("--min-n-per-group", type=int, help="smallest subgroup shown in the subgroup tables")
    run.add_argument(
        "--file-format", choices=list(FILE_FORMATS), default="csv", help="format of the table files"
    )
    run.add_argument(
        "--layout",
        choices=("tidy", "rsmtool"),
        default="tidy",
        help="score names in the printed tables: your columns' (tidy) or RSMTool's (files: always RSMTool's)",
    )
    run.add_argument(
        "--sections", help="comma-separated <prefix>_report.html sections, in order (rsmeval's names)"
    )
    run.add_argument(
        "--out",
        required=True,
        help="output directory for the RSMTool-compatible tables and <prefix>_report.html (until the run "
        "ends it holds the marker <prefix>.pdmetrics-incomplete, which also keeps a second run of the "
        "prefix out; the files an earlier evaluate run of the prefix wrote and this one does not are "
        "removed)",
    )
    run.add_argument("--prefix", help="file-name prefix (default: the input file's name)")
    rsmeval = commands.add_parser(
        "rsmeval", help="run an rsmeval configuration file unchanged and write what rsmeval writes"
    )
    rsmeval.add_argument("config_file", help="rsmeval's JSON configuration file")
    rsmeval.add_argument(
        "output_dir", nargs="?", default=".", help="where output/, report/ and figure/ go (default: .)"
    )
    rsmeval.add_argument(
        "-f", "--force", action="store_true", help="overwrite a non-empty output/ directory, as rsmeval -f"
    )
    rsmeval.add_argument(
        "--engine",
        choices=ENGINES,
        default="pandas",
        help="pandas (default) or dask: the predictions_file may then be a parquet file, a folder or a glob "
        'of them, read partition by partition with a progress bar (pip install "pdmetrics[dask]")',
    )
    compare = commands.add_parser(
        "rsmcompare",
        help="run an rsmcompare configuration file unchanged: the comparison report of two experiments, "
        "with paired intervals and tests",
        description="Compare two rsmtool/rsmeval experiment folders as RSMTool's rsmcompare does (its "
        "configuration file, read unchanged), and compare them paired: the responses both experiments "
        "evaluated are joined on their id and each metric's difference gets a confidence interval and a "
        "p-value (pdmetrics.scoring.compare). Writes OUTPUT_DIR/<comparison_id>_report.html (one offline "
        "page) and each comparison table as OUTPUT_DIR/output/<comparison_id>_<table>.csv.",
    )
    compare.add_argument("config_file", help="rsmcompare's JSON configuration file")
    compare.add_argument(
        "output_dir",
        nargs="?",
        default=".",
        help="where <comparison_id>_report.html and output/ go (default: .); until the run ends it holds the "
        "marker <comparison_id>.pdmetrics-incomplete",
    )
    _paired_options(compare, "none")
    summarize = commands.add_parser(
        "rsmsummarize",
        help="run an rsmsummarize configuration file unchanged: several experiments side by side",
        description="Summarize several rsmtool/rsmeval experiment folders as RSMTool's rsmsummarize does "
        "(its "
        "configuration file, read unchanged): OUTPUT_DIR/output/<summary_id>_<table>.<file_format> "
        "(eval_short, true_score_eval, model_fit, betas, ...) and "
        "OUTPUT_DIR/report/<summary_id>_report.html; and compares them paired: the responses every "
        "experiment evaluated are joined on their id and each metric's difference from the first experiment "
        "(--pairs all: between every pair) gets a confidence interval and a p-value "
        "(pdmetrics.scoring.compare), in OUTPUT_DIR/output/<summary_id>_paired_comparison.<file_format> and "
        "a section of the report.",
    )
    summarize.add_argument("config_file", help="rsmsummarize's JSON configuration file")
    summarize.add_argument(
        "output_dir", nargs="?", default=".", help="where output/, report/ and figure/ go (default: .)"
    )
    summarize.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="overwrite a non-empty output/ directory, as rsmsummarize -f",
    )
    summarize.add_argument(
        "--pairs",
        choices=("baseline", "all"),
        default="baseline",
        help="compare each experiment with the first of experiment_dirs (baseline, the default) or every "
        "pair (all)",
    )
    _paired_options(summarize, "holm")
    return parser


def _paired_options(parser: argparse.ArgumentParser, correction: str) -> None:
    """The paired comparison's options (``pdmetrics.scoring.compare``'s), ``--correction``'s
    default ``correction``."""
    parser.add_argument(
        "--n-resamples", type=int, default=1000, help="resamples of the paired bootstrap (default: 1000)"
    )
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="coverage of the intervals (default: 0.95)"
    )
    parser.add_argument(
        "--random-state", type=int, default=12345, help="seed of the bootstrap (default: 12345)"
    )
    parser.add_argument(
        "--correction",
        choices=("holm", "fdr_bh", "bonferroni", "none"),
        default=correction,
        help="adjust the p-values for the number of comparisons in the table (column p_adjusted; default: "
        f"{correction})",
    )


def _paired_keywords(args: argparse.Namespace) -> dict:
    return dict(
        n_resamples=args.n_resamples,
        confidence=args.confidence,
        random_state=args.random_state,
        correction=None if args.correction == "none" else args.correction,
    )


def _command_line_options(run, *arguments, **keywords):
    """``run(*arguments, **keywords)``, its refusals naming the options as the command line gives them."""
    try:
        return run(*arguments, **keywords)
    except InvalidInputError as error:
        message = str(error)
        for keyword in ("n_resamples", "confidence", "random_state", "correction", "pairs"):
            message = message.replace(f"`{keyword}=", f"`--{keyword.replace('_', '-')} ")
        raise InvalidInputError(message) from None


def rsmcompare(args: argparse.Namespace) -> int:
    """``pdmetrics rsmcompare CONFIG [OUTPUT_DIR]``: rsmcompare's report, with paired tests."""
    start = time.perf_counter()
    written = _command_line_options(
        run_rsmcompare, args.config_file, args.output_dir, notes=_note_line, **_paired_keywords(args)
    )
    return _written("rsmcompare", written, args.output_dir, start)


def rsmsummarize(args: argparse.Namespace) -> int:
    """``pdmetrics rsmsummarize CONFIG [OUTPUT_DIR]``: rsmsummarize's tables and report."""
    start = time.perf_counter()
    options = _paired_keywords(args) | {"force": args.force, "pairs": args.pairs}
    written = _command_line_options(
        run_rsmsummarize, args.config_file, args.output_dir, notes=_note_line, **options
    )
    return _written("rsmsummarize", written, args.output_dir, start)


def _written(command: str, written: list, output_dir, start: float) -> int:
    """Every file is in place (:func:`_finished`): say how many ``command`` wrote, where and in
    what time; the exit status."""
    _finished()
    print(
        f"pdmetrics {command}: {len(written)} files written under {output_dir} "
        f"in {time.perf_counter() - start:.2f} s"
    )
    return 0


def _note_line(message: str) -> None:
    print(f"note: {' '.join(message.split())}", file=sys.stderr)


def rsmeval(args: argparse.Namespace) -> int:
    """``pdmetrics rsmeval CONFIG [OUTPUT_DIR]``: rsmeval's files from its configuration file."""
    start = time.perf_counter()
    with _progress_bar(args.engine == "dask"):
        written = run_rsmeval(
            args.config_file,
            args.output_dir,
            force=args.force,
            notes=_note_line,
            engine=args.engine,
        )
    return _written("rsmeval", written, args.output_dir, start)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that unfinished files are removed as on Ctrl-C."""


def _stop(signum, frame) -> None:
    """The first SIGINT or SIGTERM stops the run; the next ones are ignored while it cleans up
    (removes its temporary files, says what it left)."""
    _ignore_signals()
    raise _Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _ignored(signum, frame) -> None:
    """A signal that comes while the run cleans up or after it finished: nothing to do. (A
    Python handler rather than ``SIG_IGN``: a signal already on its way to the first handler
    then finds a handler, not Python's "ignored due to race condition" message.)"""


def _ignore_signals() -> None:
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, _ignored)


def _finished() -> None:
    """Every file of the run is in place: a signal now (while the tables are printed) is
    ignored rather than turning a finished run into an interrupted one."""
    _ignore_signals()


def main(argv: list[str] | None = None, *, restore_signals: bool = True) -> int:
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {signum: signal.signal(signum, _stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    command = "evaluate"
    try:
        args = _parser().parse_args(argv)
        command = args.command
        unfinished_marker(reset=True)
        if args.command == "demo":
            return demo(args.rows, args.seed)
        if args.command == "rsmeval":
            return rsmeval(args)
        if args.command == "rsmcompare":
            return rsmcompare(args)
        if args.command == "rsmsummarize":
            return rsmsummarize(args)
        return evaluate(args)
    except KeyboardInterrupt as error:
        _ignore_signals()
        terminated = isinstance(error, _Terminated)
        marker = unfinished_marker()
        where = f"; {marker} marks its folder as unfinished" if marker is not None else ""
        print(
            f"pdmetrics {command}: {'terminated' if terminated else 'interrupted'}; the run did not "
            f"finish{where}. No file was left half-written.",
            file=sys.stderr,
        )
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)
    except (PdmetricsError, KeyError, ValueError, OSError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        message = " ".join(str(message).split())  # one line, whatever the source of the message
        marker = unfinished_marker()
        storage = (errno.ENOSPC, errno.EROFS, errno.EDQUOT)  # a full or read-only output folder
        if isinstance(error, OSError) and not isinstance(error, PdmetricsError):
            if marker is not None or error.errno in storage:
                message += "; free some space or choose an output folder pdmetrics can write to"
        if marker is not None:
            message += f" ({marker} marks the folder as unfinished; no file was left half-written)"
        print(f"pdmetrics {command}: error: {message}", file=sys.stderr)
        return 1 if command.startswith("rsm") else 2  # RSMTool's commands exit with 1 on a refusal
    finally:
        if restore_signals:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def console() -> None:
    """The ``pdmetrics`` command: :func:`main`, then exit without tearing the interpreter down.

    Every file is closed by then; freeing the frames and modules one by one would only add
    0.1-0.2 s to a command that takes a second or two (100k responses), so the process ends
    with ``os._exit`` once standard output and error are flushed. A signal during start-up
    (``pdmetrics._startup``) or after the run ends gives no traceback.
    """
    code = main(restore_signals=False)
    _ignore_signals()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()

"""Benchmark: ROUGE and BLEU per row, pdmetrics against rouge-score and nltk called row by row.

Generates ``--rows`` seeded synthetic prediction/reference pairs of 20-80 tokens (Zipf word
frequencies, punctuation; the reference is the prediction with about a third of its words
replaced, dropped or inserted; half of the texts have one sentence per line, so ROUGE-Lsum
takes its union-LCS path). Times

- ROUGE (rouge1, rouge2, rougeL, rougeLsum): ``pdmetrics.textgen.rouge`` against
  ``rouge_score.rouge_scorer.RougeScorer(...).score_multi`` row by row (what valor calls
  through Hugging Face ``evaluate``, F-measure kept);
- BLEU: ``pdmetrics.textgen.bleu`` against valor's recipe row by row (nltk
  ``RegexpTokenizer`` + ``sentence_bleu``, values below 1e-9 reported as 0).

Prints the medians over ``--repeat`` runs (the references once, ``--reference-repeat``), the
ratios, and checks that every number is identical (``==``).

    python benchmarks/bench_textgen.py --rows 100000
    python benchmarks/bench_textgen.py --rows 100000 --only bleu
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import median_time

from pdmetrics.textgen import bleu, rouge

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def simulate(rows: int, seed: int) -> tuple[list[str], list[str]]:
    """Seeded prediction/reference pairs of 20-80 tokens."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{k}" for k in range(5000)] + ["the", "a", "of", "and", "to", "in", "is"])
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    lengths = rng.integers(20, 81, rows)
    words = rng.choice(vocabulary, size=int(lengths.sum()), p=weights)
    marks = rng.choice(["", "", "", "", "", "", ",", "."], size=len(words))
    predictions, references = [], []
    start = 0
    for length in lengths.tolist():  # building the synthetic texts, not the timed code
        tokens = [w + m for w, m in zip(words[start : start + length], marks[start : start + length])]
        start += length
        edit = rng.random(length)
        reference = []
        for token, e in zip(tokens, edit):
            if e < 0.15:
                reference.append(str(rng.choice(vocabulary[:300])))
            elif e < 0.25:
                continue
            elif e < 0.33:
                reference += [token, str(rng.choice(vocabulary[:300]))]
            else:
                reference.append(token)
        joiner = "\n" if rng.random() < 0.5 else " "
        predictions.append(" ".join(tokens).replace(". ", "." + joiner))
        references.append(" ".join(reference).replace(". ", "." + joiner))
    return predictions, references


def rouge_reference(predictions, references):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=False)
    out = {t: [] for t in TYPES}
    for p, r in zip(predictions, references):
        scores = scorer.score_multi([r], p)
        for t in TYPES:
            out[t].append(max(scores[t].fmeasure, 0.0))
    return pd.DataFrame(out)


def bleu_reference(predictions, references):
    from nltk.tokenize import RegexpTokenizer
    from nltk.translate import bleu_score

    tokenizer = RegexpTokenizer(r"\w+|\$[\d]+|[^\s\.]+")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p, r in zip(predictions, references):
            value = float(
                bleu_score.sentence_bleu([tokenizer.tokenize(r)], tokenizer.tokenize(p), weights=(0.25,) * 4)
            )
            out.append(value if value >= 1e-9 else 0.0)
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference-repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("rouge", "bleu"), help="time one metric only")
    args = parser.parse_args()

    predictions, references = simulate(args.rows, args.seed)
    frame = pd.DataFrame({"pred": predictions, "ref": references})
    tokens = np.array([len(p.split()) for p in predictions])
    print(f"{args.rows:,} pairs, {tokens.min()}-{tokens.max()} words (mean {tokens.mean():.1f})")

    for key, name, ours, theirs in (
        (
            "rouge",
            "ROUGE (rouge1, rouge2, rougeL, rougeLsum)",
            lambda: rouge(frame, prediction="pred", reference="ref", rouge_types=TYPES),
            rouge_reference,
        ),
        (
            "bleu",
            "BLEU-4 (valor: nltk sentence_bleu)",
            lambda: bleu(frame, prediction="pred", reference="ref"),
            bleu_reference,
        ),
    ):
        if args.only not in (None, key):
            continue
        t_ours, got = median_time(ours, args.repeat)
        t_ref, expected = median_time(lambda f=theirs: f(predictions, references), args.reference_repeat)
        if isinstance(expected, pd.DataFrame):
            identical = bool((got[TYPES].to_numpy() == expected[TYPES].to_numpy()).all())
        else:
            identical = bool((got["bleu"].to_numpy() == expected).all())
        print(f"{name}")
        print(f"  pdmetrics            {t_ours:8.3f} s")
        print(f"  reference row by row {t_ref:8.3f} s")
        print(f"  ratio                {t_ref / t_ours:8.1f} x   identical numbers: {identical}")
        if not identical:
            raise SystemExit(f"{name}: pdmetrics differs from the reference")


if __name__ == "__main__":
    main()

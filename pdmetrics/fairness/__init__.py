"""Fairness of scores and classifiers (``df.fairness``)."""

from pdmetrics.fairness.accessor import FairnessAccessor

__all__ = ["FairnessAccessor"]

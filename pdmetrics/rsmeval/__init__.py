"""The rsmeval application: RSMTool's whole evaluation of a scored test set.

:func:`report` computes every table of rsmeval into an :class:`EvaluationReport` (tidy tables
by name; ``to_csv``/``write`` produce rsmeval's files, ``to_html`` its page), and
``pdmetrics rsmeval config.json`` runs it from an rsmeval configuration file. The package sits
above :mod:`pdmetrics.scoring` and :mod:`pdmetrics.fairness`, whose tables it assembles:

- :mod:`~pdmetrics.rsmeval.reporting`: :func:`report`'s options, its table spec and state (one
  pass over the rows), and the report made from the state;
- :mod:`~pdmetrics.rsmeval.report_object`: the report object and its writers;
- :mod:`~pdmetrics.rsmeval.data`: rsmeval's data tables (per-response files, file names);
- :mod:`~pdmetrics.rsmeval.rsmtool_files`: RSMTool's column and file names;
- :mod:`~pdmetrics.rsmeval.html_page` and :mod:`~pdmetrics.rsmeval.figures`: the offline HTML
  page and its SVG figures;
- :mod:`~pdmetrics.rsmeval.config`, :mod:`~pdmetrics.rsmeval.responses_input` and
  :mod:`~pdmetrics.rsmeval.run`: the configuration file, the responses file and the command.
"""

from pdmetrics.rsmeval.report_object import EvaluationReport
from pdmetrics.rsmeval.reporting import report

__all__ = ["EvaluationReport", "report"]

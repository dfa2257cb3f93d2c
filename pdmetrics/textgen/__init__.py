"""Text generation metrics (``df.textgen``): ROUGE and BLEU against reference texts."""

from pdmetrics.textgen.bleu import bleu
from pdmetrics.textgen.rouge import rouge
from pdmetrics.textgen.tokens import EmptyTokensWarning

__all__ = ["EmptyTokensWarning", "bleu", "rouge"]

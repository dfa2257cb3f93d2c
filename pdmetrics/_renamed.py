"""Options renamed without an alias: the old keyword is refused naming the new one.

pdmetrics spells each option one way (``by=``, ``n_resamples=``, ``confidence=``,
``random_state=``, ``zero_division=``, ``table=``). A function whose option was renamed is
decorated with :func:`renamed`; its signature is unchanged (``inspect.signature`` follows the
wrapper), and a call with the old keyword raises the ``TypeError`` Python raises for an
unknown keyword, with the new name in the message.
"""

from __future__ import annotations

from pdmetrics._wrappers import in_module_of

#: Every retired option name and the name that replaced it.
RENAMED = {
    "sensitive": "by",
    "groups": "by",
    "n_boot": "n_resamples",
    "n_samples": "n_resamples",
    "seed": "random_state",
    "on_undefined": "zero_division",
    "kind": "table",
}


def renamed(*old_names: str):
    """Refuse the retired keywords ``old_names`` (keys of :data:`RENAMED`) of the decorated function.

    >>> @renamed("n_boot")
    ... def rates(*, n_resamples=0):
    ...     return n_resamples
    >>> rates(n_boot=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: rates() got an unexpected keyword argument 'n_boot': `n_boot=` is now `n_resamples=` ...
    """

    news = {old: RENAMED[old] for old in old_names}

    def decorate(function):
        def wrapper(*args, **kwargs):
            for old, new in news.items():
                if old in kwargs:
                    raise TypeError(
                        f"{function.__qualname__}() got an unexpected keyword argument {old!r}: "
                        f"`{old}=` is now `{new}=` (renamed, no alias)."
                    )
            return function(*args, **kwargs)

        # the wrapper lives in the function's module, so its Examples still run as doctests
        return in_module_of(function, wrapper)

    return decorate

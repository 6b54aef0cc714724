"""Old names kept one release: arguments renamed, arguments that became keyword-only.

Both decorators warn with :class:`DeprecationWarning` at the caller's line and leave the
function's signature as it is now (what :mod:`oclstat._vocabulary` checks); the old spellings
they accept are listed in ``__renamed__`` and ``__was_positional__``.

>>> import warnings
>>> @renamed(n_perm="n_resamples")
... def f(*, n_resamples=1):
...     return n_resamples
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     f(n_perm=5), w[0].category.__name__
(5, 'DeprecationWarning')
"""

from __future__ import annotations

import functools
import inspect
import warnings

__all__ = ["renamed", "keyword_only"]


def renamed(**old_to_new: str):
    """Accept ``old=`` for each ``new=`` argument, with a DeprecationWarning."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__name__}() got {old}= and {new}=; pass {new}= "
                                        "only")
                    warnings.warn(f"{fn.__name__}(): {old}= is now {new}= (the old name goes "
                                  "in the next release)", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)
        wrapper.__renamed__ = {**getattr(fn, "__renamed__", {}), **old_to_new}
        return wrapper
    return decorate


def keyword_only(*was_positional: str):
    """Accept the keyword-only arguments ``was_positional`` (in their old order) by position
    after the positional ones, with a DeprecationWarning."""
    def decorate(fn):
        params = inspect.signature(fn).parameters.values()
        n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            extra = args[n_pos:]
            if extra:
                if len(extra) > len(was_positional):
                    raise TypeError(f"{fn.__name__}() takes at most "
                                    f"{n_pos + len(was_positional)} positional arguments, got "
                                    f"{len(args)}")
                names = was_positional[:len(extra)]
                warnings.warn(f"{fn.__name__}(): pass {', '.join(n + '=' for n in names)} by "
                              "name (by position goes in the next release)",
                              DeprecationWarning, stacklevel=2)
                for name, value in zip(names, extra, strict=True):
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got multiple values for {name!r}")
                    kwargs[name] = value
                args = args[:n_pos]
            return fn(*args, **kwargs)
        wrapper.__was_positional__ = was_positional
        return wrapper
    return decorate

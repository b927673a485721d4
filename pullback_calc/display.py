"""How results show themselves in a notebook (Jupyter, or any front end that calls
``_repr_html_``): the results ask here for their HTML.  The renderers are a later layer
than the results, so the results do not import them; the package
(``pullback_calc/__init__.py``, which runs before any module of it) tells this module
where the renderer is.
"""
from __future__ import annotations

from typing import Callable, Optional

#: result -> HTML (the interactive stepper), set by the package
html: Optional[Callable[[object], str]] = None


def html_of(result) -> Optional[str]:
    """The HTML of ``result``, or None (front ends then show its ``repr``)."""
    return None if html is None else html(result)

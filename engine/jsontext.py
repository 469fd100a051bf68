"""JSON text from outside (a log line, a labels file, a request body), read without surprises.

Why not plain ``json.loads``: nesting about a thousand deep raises
``RecursionError`` (no ``ValueError``, so no handler takes it for bad input),
and nesting a little less deep parses but then breaks whatever walks or
prints the value later; an integer of more than 4,300 digits raises a
``ValueError`` that names no position and advises changing the interpreter.
Every document the project reads is a few levels deep, so anything nested
past ``max_depth`` is refused here, in words.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["JsonTextError", "MAX_DEPTH", "loads", "nesting_depth"]

MAX_DEPTH = 32


class JsonTextError(ValueError):
    """Text that is not JSON this project reads; the message says why in words."""


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parses ``text`` as JSON, refusing nesting past ``max_depth`` and numbers too long to read.

    >>> loads('[[1]]')
    [[1]]
    >>> loads('[[[1]]]', max_depth=2)
    Traceback (most recent call last):
    ...
    engine.jsontext.JsonTextError: nested more than 2 levels deep
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not valid JSON ({exc.msg} at line {exc.lineno} column "
                            f"{exc.colno})") from None
    except RecursionError:
        raise JsonTextError(f"nested more than {max_depth} levels deep") from None
    except ValueError as exc:
        if "digits" in str(exc):
            raise JsonTextError(f"a number with more than {sys.get_int_max_str_digits()} "
                                f"digits") from None
        raise JsonTextError(f"not valid JSON ({exc})") from None
    # Counting brackets is quick; the exact walk runs only when the count allows depth.
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
    else:
        brackets = text.count("[") + text.count("{")
    if brackets > max_depth and nesting_depth(value) > max_depth:
        raise JsonTextError(f"nested more than {max_depth} levels deep")
    return value


def nesting_depth(value: Any) -> int:
    """How many lists and objects deep ``value`` goes (0 for a plain value), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest

"""JSON in and out of Engine calls, guided by the Engine's own type hints.

The host runs `Engine` methods for other processes. Arguments and results
travel as plain JSON; each side rebuilds the typed values (frozen dataclasses,
datetimes, tuples) from the annotations of the method being called, so one
generic endpoint serves every Engine method, including ones added later.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from app.clock import from_iso

_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of dataclass `cls` (None for any other class), once per class."""
    try:
        return _FIELD_NAMES[cls]
    except KeyError:
        names = (
            tuple(f.name for f in dataclasses.fields(cls))
            if dataclasses.is_dataclass(cls)
            else None
        )
        _FIELD_NAMES[cls] = names
        return names


def to_json(value: Any) -> Any:
    """A JSON-able copy of `value` (dataclasses as objects, datetimes as ISO text)."""
    # Scalars first: they are most of the values of every result (every MCP call's).
    if value is None or isinstance(value, str | int | float):
        return value
    names = _field_names(type(value))
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Path):
        # Absolute: the host that receives it runs in another working directory.
        return str(value.expanduser().resolve())
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_json(v) for v in value]
    return value


def from_json(tp: Any, value: Any) -> Any:
    """Rebuild a value of type `tp` from its JSON form (best effort, never raises on Any)."""
    if value is None or tp is Any or tp is None:
        return value
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _from_union(args, value)
    if tp is datetime:
        return from_iso(value) if isinstance(value, str) else value
    if tp is Path:
        return Path(value) if isinstance(value, str) else value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and isinstance(value, Mapping):
        hints = _hints(tp)
        known = {f.name for f in dataclasses.fields(tp)}
        build: Any = tp
        return build(**{k: from_json(hints.get(k, Any), v) for k, v in value.items() if k in known})
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], v) for v in value)
        if args:
            return tuple(from_json(t, v) for t, v in zip(args, value, strict=False))
        return tuple(value)
    if origin in (list, Sequence, set, frozenset) and isinstance(value, list):
        item = args[0] if args else Any
        return [from_json(item, v) for v in value]
    if origin in (dict, Mapping) and isinstance(value, Mapping):
        item = args[1] if len(args) == 2 else Any
        return {k: from_json(item, v) for k, v in value.items()}
    return value


def _from_union(args: tuple[Any, ...], value: Any) -> Any:
    # A mapping stays a mapping when the union accepts one (e.g. NewEntry | Mapping):
    # the engine validates dicts itself and names the bad field.
    if isinstance(value, Mapping):
        if any(typing.get_origin(a) in (dict, Mapping) or a in (dict, Mapping) for a in args):
            return dict(value)
        for a in args:
            if dataclasses.is_dataclass(a):
                return from_json(a, value)
        return value
    if isinstance(value, str):
        if str in args:
            return value
        for a in args:
            if a in (datetime, Path):
                return from_json(a, value)
        return value
    if isinstance(value, list):
        for a in args:
            if typing.get_origin(a) in (list, tuple, Sequence, set, frozenset):
                return from_json(a, value)
    return value


@cache
def _hints(obj: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(obj)
    except Exception:  # a hint that cannot be resolved: fall back to plain JSON
        return {}


def method_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of a method (empty when they cannot be resolved)."""
    return _hints(fn)


def decode_arguments(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Typed positional and keyword arguments for `fn` from their JSON forms."""
    hints = method_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    typed_args = [from_json(hints.get(p.name, Any), v) for p, v in zip(params, args, strict=False)]
    typed_kwargs = {k: from_json(hints.get(k, Any), v) for k, v in kwargs.items()}
    return typed_args, typed_kwargs

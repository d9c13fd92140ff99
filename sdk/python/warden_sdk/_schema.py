"""JSON Schemas from type hints, and argument checking against the same hints.

A tool's argument type is a dataclass or a TypedDict. Field types: `str`, `int`, `float`,
`bool`, `list[T]`, `dict[str, T]`, `T | None` (optional: may be left out), `Literal[...]`,
`Enum` subclasses, and nested dataclasses / TypedDicts. A field's description comes from
`Annotated[T, "text"]` (or `Annotated[T, Field(description=..., ...)]`) or from a string
literal right under the field (an attribute docstring). Schemas are computed when the tool is
declared, which componentize-py runs at build time, so source is there to read.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any, Annotated, Literal, Union, get_args, get_origin, get_type_hints

_MISSING = object()


@dataclass(frozen=True)
class Field:
    """Extra rules for one field, given as `Annotated[T, Field(...)]`."""

    description: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None


class ArgumentError(Exception):
    """Arguments that do not fit the hints; becomes an invalid-arguments tool error."""


def is_record(tp: Any) -> bool:
    return (dataclasses.is_dataclass(tp) and isinstance(tp, type)) or typing.is_typeddict(tp)


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """`field: T` followed by a string literal: that string documents the field."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            source = textwrap.dedent(inspect.getsource(klass))
            tree = ast.parse(source)
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for stmt, nxt in zip(body, body[1:]):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[stmt.target.id] = " ".join(inspect.cleandoc(nxt.value.value).split())
    return docs


_TYPEDDICT_MARKERS = tuple(getattr(typing, n) for n in ("NotRequired", "Required", "ReadOnly") if hasattr(typing, n))


def _split_annotated(tp: Any) -> tuple[Any, str | None, Field | None]:
    description = None
    field = None
    # TypedDict's markers; `__required_keys__` already says which keys are required.
    while get_origin(tp) is not None and get_origin(tp) in _TYPEDDICT_MARKERS:
        tp = get_args(tp)[0]
    if get_origin(tp) is Annotated:
        base, *extras = get_args(tp)
        for extra in extras:
            if isinstance(extra, str):
                description = extra
            elif isinstance(extra, Field):
                field = extra
                description = extra.description or description
        return base, description, field
    return tp, None, None


def _optional_inner(tp: Any) -> Any:
    """`T` for `T | None` / `Optional[T]`, else `_MISSING`."""
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) + 1 == len(get_args(tp)) and len(args) == 1:
            return args[0]
    return _MISSING


class Record:
    """One argument (or result) type: its fields with types, descriptions and defaults."""

    def __init__(self, cls: type) -> None:
        if not is_record(cls):
            raise TypeError(f"{cls!r} must be a dataclass or a TypedDict")
        self.cls = cls
        self.is_typeddict = typing.is_typeddict(cls)
        hints = get_type_hints(cls, include_extras=True)
        docs = _attribute_docstrings(cls)
        self.fields: dict[str, tuple[Any, str | None, Field | None, bool, Any]] = {}
        if self.is_typeddict:
            required_keys = getattr(cls, "__required_keys__", frozenset(hints))
            for name, tp in hints.items():
                # With postponed annotations `__required_keys__` misses the markers: read them too.
                marker = get_origin(tp)
                listed = name in required_keys
                required = (listed and marker is not typing.NotRequired) or marker is typing.Required
                base, desc, field = _split_annotated(tp)
                optional = not required or _optional_inner(base) is not _MISSING
                self.fields[name] = (base, desc or docs.get(name), field, not optional, _MISSING)
        else:
            for f in dataclasses.fields(cls):
                base, desc, field = _split_annotated(hints[f.name])
                default: Any = _MISSING
                if f.default is not dataclasses.MISSING:
                    default = f.default
                elif f.default_factory is not dataclasses.MISSING:
                    default = f.default_factory
                has_default = default is not _MISSING
                optional = has_default or _optional_inner(base) is not _MISSING
                self.fields[f.name] = (base, desc or docs.get(f.name), field, not optional, default)

    def schema(self, defs: dict[str, Any], output: bool = False) -> dict[str, Any]:
        """The object schema. For arguments an optional field may be left out (its schema
        does not allow null); for results every field is there and `T | None` may be null."""
        props: dict[str, Any] = {}
        required: list[str] = []
        for name, (tp, desc, field, req, default) in self.fields.items():
            sub = type_schema(tp, defs, output)
            if desc:
                sub = {"description": desc, **sub}
            if field is not None:
                for key, val in (
                    ("minimum", field.minimum),
                    ("maximum", field.maximum),
                    ("minLength", field.min_length),
                    ("maxLength", field.max_length),
                    ("pattern", field.pattern),
                ):
                    if val is not None:
                        sub[key] = val
            if not output and default is not _MISSING and default is not None and not callable(default) and _json_scalar(default):
                sub["default"] = default.value if isinstance(default, enum.Enum) else default
            props[name] = sub
            if req or (output and not self.is_typeddict):
                required.append(name)
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        return out

    def parse(self, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise ArgumentError(f"{_where(path)}must be an object, got {_json_type(value)}")
        unknown = [k for k in value if k not in self.fields]
        if unknown:
            known = ", ".join(f"`{k}`" for k in self.fields) or "none"
            raise ArgumentError(f"unknown field `{_join(path, unknown[0])}`, expected one of: {known}")
        out: dict[str, Any] = {}
        for name, (tp, _desc, field, req, default) in self.fields.items():
            where = _join(path, name)
            if name not in value:
                if req:
                    raise ArgumentError(f"missing field `{where}`")
                if self.is_typeddict:
                    continue
                out[name] = default() if callable(default) and default is not _MISSING else (
                    None if default is _MISSING else default
                )
                continue
            out[name] = parse_value(tp, value[name], where)
            if field is not None:
                _check_field(field, out[name], where)
        return out if self.is_typeddict else self.cls(**out)


def _json_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, enum.Enum))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _where(path: str) -> str:
    return f"`{path}` " if path else "the arguments "


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}" if len(value) <= 40 else "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _check_field(field: Field, value: Any, where: str) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if field.minimum is not None and value < field.minimum:
            raise ArgumentError(f"`{where}` must be at least {field.minimum}, got {value}")
        if field.maximum is not None and value > field.maximum:
            raise ArgumentError(f"`{where}` must be at most {field.maximum}, got {value}")
    if isinstance(value, (str, list)):
        if field.min_length is not None and len(value) < field.min_length:
            raise ArgumentError(f"`{where}` must have at least {field.min_length} items or characters")
        if field.max_length is not None and len(value) > field.max_length:
            raise ArgumentError(f"`{where}` must have at most {field.max_length} items or characters")
    if isinstance(value, str) and field.pattern is not None:
        import re

        if re.search(field.pattern, value) is None:
            raise ArgumentError(f"`{where}` must match the pattern {field.pattern}")


_records: dict[type, Record] = {}


def record(cls: type) -> Record:
    if cls not in _records:
        _records[cls] = Record(cls)
    return _records[cls]


def type_schema(tp: Any, defs: dict[str, Any], output: bool = False) -> dict[str, Any]:
    tp, desc, _ = _split_annotated(tp)
    inner = _optional_inner(tp)
    if inner is not _MISSING:
        if output:
            return {"anyOf": [type_schema(inner, defs, output), {"type": "null"}]}
        # An optional argument is simply left out; its schema need not allow null.
        return type_schema(inner, defs)
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is Any or tp is object:
        return {}
    origin = get_origin(tp)
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if origin in (list, tuple, set, frozenset) or tp in (list, tuple):
        args = get_args(tp)
        item = args[0] if args else Any
        return {"type": "array", "items": type_schema(item, defs, output)}
    if origin is dict or tp is dict:
        args = get_args(tp)
        value = args[1] if len(args) == 2 else Any
        return {"type": "object", "additionalProperties": type_schema(value, defs, output)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [type_schema(a, defs, output) for a in get_args(tp)]}
    if is_record(tp):
        return record(tp).schema(defs, output)
    raise TypeError(f"unsupported type in a tool's arguments: {tp!r}")


def parse_value(tp: Any, value: Any, path: str) -> Any:
    tp, _, _ = _split_annotated(tp)
    inner = _optional_inner(tp)
    if inner is not _MISSING:
        return None if value is None else parse_value(inner, value, path)
    if tp is Any or tp is object:
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ArgumentError(f"`{path}` must be a string, got {_json_type(value)}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ArgumentError(f"`{path}` must be true or false, got {_json_type(value)}")
        return value
    if tp is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ArgumentError(f"`{path}` must be an integer, got {_json_type(value)}")
        return value
    if tp is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ArgumentError(f"`{path}` must be a number, got {_json_type(value)}")
        return float(value)
    origin = get_origin(tp)
    if origin is Literal:
        allowed = get_args(tp)
        if value not in allowed:
            raise ArgumentError(f"`{path}` must be one of {', '.join(repr(a) for a in allowed)}, got {_json_type(value)}")
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in tp)
            raise ArgumentError(f"`{path}` must be one of {allowed}, got {_json_type(value)}") from None
    if origin in (list, tuple, set, frozenset) or tp in (list, tuple):
        if not isinstance(value, list):
            raise ArgumentError(f"`{path}` must be an array, got {_json_type(value)}")
        args = get_args(tp)
        item = args[0] if args else Any
        items = [parse_value(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
        return (origin or list)(items) if origin in (tuple, set, frozenset) else items
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            raise ArgumentError(f"`{path}` must be an object, got {_json_type(value)}")
        args = get_args(tp)
        vt = args[1] if len(args) == 2 else Any
        return {k: parse_value(vt, v, f"{path}.{k}") for k, v in value.items()}
    if origin in (Union, types.UnionType):
        errors = []
        for alt in get_args(tp):
            try:
                return parse_value(alt, value, path)
            except ArgumentError as e:
                errors.append(str(e))
        raise ArgumentError("; or ".join(errors))
    if is_record(tp):
        return record(tp).parse(value, path)
    raise ArgumentError(f"`{path}` has a type the SDK cannot check: {tp!r}")


def to_json(value: Any) -> Any:
    """A tool result as JSON data: dataclasses and enums are unwrapped."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(v) for v in value]
    return value

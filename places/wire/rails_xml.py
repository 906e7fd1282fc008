"""XML exactly as the 2011 Rails 3 server's ``to_xml`` wrote it.

Bots written in 2011 parse this XML, some of them with string matching, so the
output copies ActiveSupport's ``Hash#to_xml`` / ``Array#to_xml`` (Builder,
indent 2) byte for byte: dasherized names, ``type`` attributes, ``nil="true"``,
``<nil-classes type="array"/>`` for an empty list. See PROTOCOL.md section 3.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
# Builder replaces characters XML 1.0 forbids with "*" so that the document stays parseable.
_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(text: str, quote: bool = False) -> str:
    """Escape like Builder: & < > in text, and " too in attribute values."""
    text = _INVALID_XML_CHARS.sub("*", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def _dasherize(name: Any) -> str:
    """Rails' ``rename_key``: ``game_count`` becomes ``game-count``."""
    return str(name).replace("_", "-")


def _singular(name: str) -> str:
    """Rails' ``singularize``, enough for our names (cards, ranks, player-infos)."""
    return name[:-1] if name.endswith("s") else name


def _record_key(items: list[Any]) -> str | None:
    """The shared key if every item is ``{key: {...}}``: a model as Rails' JSON wraps it."""
    keys = {next(iter(i)) for i in items if isinstance(i, Mapping) and len(i) == 1}
    if len(keys) == 1 and all(isinstance(i, Mapping) and len(i) == 1 for i in items):
        key = keys.pop()
        return key if all(isinstance(i[key], Mapping) for i in items) else None
    return None


def _scalar(value: Any) -> tuple[str | None, str]:
    """The ``type`` attribute and text ActiveSupport's XmlMini gives a value."""
    if isinstance(value, bool):  # before int: bool is an int in Python
        return "boolean", "true" if value else "false"
    if isinstance(value, int):
        return "integer", str(value)
    if isinstance(value, float):
        return "float", repr(value)
    if isinstance(value, datetime):  # before date: datetime is a date
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return "datetime", value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return "date", value.isoformat()
    if isinstance(value, str):
        return None, value
    raise TypeError(f"cannot render {type(value).__name__} as Rails XML")


def _tag(name: str, value: Any, depth: int, out: list[str]) -> None:
    """Append the lines of one element, as Builder indents them."""
    pad = "  " * depth
    if isinstance(value, Mapping):
        out.append(f"{pad}<{name}>")
        for key, child in value.items():
            _tag(_dasherize(key), child, depth + 1, out)
        out.append(f"{pad}</{name}>")
    elif isinstance(value, list | tuple):
        if not value:
            out.append(f'{pad}<{name} type="array"/>')
            return
        out.append(f'{pad}<{name} type="array">')
        record = _record_key(list(value))
        for item in value:
            _tag(_singular(name), item[record] if record else item, depth + 1, out)
        out.append(f"{pad}</{name}>")
    elif value is None:
        out.append(f'{pad}<{name} nil="true"/>')
    else:
        type_name, text = _scalar(value)
        attrs = f' type="{_escape(type_name, quote=True)}"' if type_name else ""
        out.append(f"{pad}<{name}{attrs}>{_escape(text)}</{name}>")


def to_rails_xml(
    data: Mapping[str, Any] | list[Any] | tuple[Any, ...], root: str | None = None
) -> str:
    """Render a dict or a list as Rails 3's ``to_xml`` did, declaration included.

    A dict is ``<hash>``. A list is ``<things type="array">``, named after its
    ``{"thing": {...}}`` items (get_hand's JSON shape) or ``objects`` otherwise;
    an empty one is Rails' ``<nil-classes type="array"/>``.
    """
    if isinstance(data, Mapping):
        name = root or "hash"
    elif isinstance(data, list | tuple):
        record = _record_key(list(data))
        name = root or (f"{record}s" if record else "objects" if data else "nil_classes")
    else:
        raise TypeError(f"to_xml needs a dict or a list, not {type(data).__name__}")
    out: list[str] = []
    _tag(_dasherize(name), data, 0, out)
    return DECLARATION + "\n".join(out) + "\n"

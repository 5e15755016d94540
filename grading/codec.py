"""Plain-data transport between the grading process and the answer sandbox.

Only numbers, booleans, None, short strings, lists and NumPy arrays of numbers cross the
boundary, as JSON. The grading process never unpickles anything the student's code produced,
and decoding builds fresh NumPy arrays from plain lists, so an object "equal to anything"
cannot reach the checks: it is refused on the sandbox side and could not be decoded here.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np

MAX_ITEMS = 5_000_000  # numbers in one encoded value
MAX_STRING = 10_000

NUMERIC_KINDS = "biuf"
_WIRE = {"b": np.dtype("|u1"), "i": np.dtype("<i8"), "u": np.dtype("<u8"), "f": np.dtype("<f8")}


class EncodingError(TypeError):
    """A value that cannot cross the sandbox boundary as plain data; ``kind`` is one of :data:`KINDS`."""

    def __init__(self, message: str, kind: str = "other"):
        super().__init__(message)
        self.kind = kind if kind in KINDS else "other"


# what a student is told about an answer that cannot cross (the kind crosses, never the text)
KINDS = {
    "complex": "a complex number (a negative number raised to a fractional power, say)",
    "object": "an object that is not a number, string, list, dict or NumPy array",
    "large": "an answer larger than an answer can be",
    "key": "a dict whose keys are not strings or numbers",
    "other": "something that is not a number, string, list, dict or array",
}


def encode(value: Any, _budget: list[int] | None = None) -> Any:
    """A JSON-able form of ``value`` or :class:`EncodingError`.

    Numbers, booleans, None, strings, lists, tuples, dicts and NumPy arrays of numbers or strings
    cross; NumPy scalars (``np.float32``, ``np.int64``, ``np.bool_``, ``np.str_``) and 0-d arrays
    cross as the plain value they hold. Types are matched exactly or as NumPy's own scalar types:
    a class of the notebook's own (an object "equal to anything") is refused here and could not be
    built on the grading side anyway."""
    budget = [MAX_ITEMS] if _budget is None else _budget
    kind = type(value)
    if kind not in (dict, list, tuple) and isinstance(value, (dict, list, tuple)):
        # Counter, defaultdict, OrderedDict, namedtuple ...: their items, as the plain container; the
        # items themselves are still encoded by exact type, so no method of the subclass is trusted
        try:
            value = dict(dict.items(value)) if isinstance(value, dict) else (
                list(list.__iter__(value)) if isinstance(value, list) else tuple(tuple.__iter__(value)))
        except Exception:  # noqa: BLE001
            raise EncodingError(f"an object of type {kind.__name__}", "object") from None
        kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return {"__int__": str(value)} if abs(value) > 2**53 else value
    if kind is float:
        return _float(value)
    if kind is str or kind is np.str_:
        if len(value) > MAX_STRING:
            raise EncodingError("a string that long cannot be an answer", "large")
        return {"__str__": str(value)}
    if kind is np.bool_:
        return bool(value)
    if kind in _NUMPY_INTS:
        return encode(int(value), budget)
    if kind in _NUMPY_FLOATS:
        return _float(float(value))
    if kind is np.ndarray:
        if value.dtype.kind == "U":
            budget[0] -= value.size
            if budget[0] < 0 or any(len(x) > MAX_STRING for x in value.ravel().tolist()):
                raise EncodingError("the answer is too large", "large")
            return {"__nd__": "U", "shape": list(value.shape), "data": [str(x) for x in value.ravel().tolist()]}
        if value.dtype.kind not in NUMERIC_KINDS:
            raise EncodingError(f"an array of dtype {value.dtype} (an answer must hold numbers)",
                                "complex" if value.dtype.kind == "c" else "object")
        budget[0] -= value.size
        if budget[0] < 0:
            raise EncodingError("the answer is too large", "large")
        # the raw little-endian bytes of a float64, int64, uint64 or bool array, in base64: exact,
        # fast for large arrays, and decoded here by np.frombuffer (no object is ever unpickled)
        target = _WIRE[value.dtype.kind]
        raw = np.ascontiguousarray(value, dtype=target).tobytes()
        return {"__nd__": value.dtype.kind, "shape": list(value.shape), "b64": base64.b64encode(raw).decode("ascii")}
    if kind in (list, tuple):
        if len(value) > MAX_ITEMS:
            raise EncodingError("the answer is too large", "large")
        return {"__seq__": "tuple" if kind is tuple else "list", "items": [encode(v, budget) for v in value]}
    if kind is dict:
        if len(value) > 100_000:
            raise EncodingError("the answer is too large", "large")
        pairs = []
        for key, item in value.items():
            if type(key) not in _KEY_TYPES:
                raise EncodingError("dictionary keys must be strings or numbers", "key")
            pairs.append([encode(key, budget), encode(item, budget)])
        return {"__dict__": pairs}
    raise EncodingError(f"an object of type {kind.__name__} (an answer must be a number, a bool or a NumPy array)",
                        "complex" if kind in (complex, np.complex64, np.complex128) else "object")


_NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.intc, np.uintc, np.longlong, np.ulonglong)
_NUMPY_FLOATS = (np.float16, np.float32, np.float64, np.longdouble)
_KEY_TYPES = (str, int, float, bool, np.str_, np.bool_) + _NUMPY_INTS + _NUMPY_FLOATS


def _float(x: float) -> Any:
    if x != x:
        return {"__float__": "nan"}
    if x in (float("inf"), float("-inf")):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return x


def decode(data: Any) -> Any:
    """Inverse of :func:`encode` (built only from plain JSON data)."""
    if data is None or isinstance(data, (bool, int, float)):
        return data
    if isinstance(data, list):  # plain JSON lists only appear inside arrays
        raise EncodingError("malformed value")
    if isinstance(data, dict):
        if "__float__" in data:
            return float(data["__float__"])
        if "__int__" in data:
            return int(str(data["__int__"]))
        if "__str__" in data:
            return str(data["__str__"])
        if "__nd__" in data:
            dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64, "U": str}[data["__nd__"]]
            if "b64" in data:
                return _from_bytes(data)
            items = [_scalar(x) for x in data["data"]]
            if dtype is str and not all(isinstance(x, str) for x in items):
                raise EncodingError("malformed value")
            if dtype is not str and not all(type(x) in (bool, int, float) for x in items):
                raise EncodingError("malformed value")
            shape = [int(s) for s in data["shape"]]
            if len(shape) > 32 or any(s < 0 or s > MAX_ITEMS for s in shape):
                raise EncodingError("malformed value")
            return np.array(items, dtype=dtype).reshape(shape)
        if "__seq__" in data:
            items = [decode(v) for v in data["items"]]
            return tuple(items) if data["__seq__"] == "tuple" else items
        if "__dict__" in data:
            pairs = [(decode(k), decode(v)) for k, v in data["__dict__"]]
            if not all(type(k) in (str, int, float, bool) for k, _ in pairs):
                raise EncodingError("malformed value")
            return dict(pairs)
    raise EncodingError("malformed value")


def _from_bytes(data: dict[str, Any]) -> np.ndarray:
    """A fresh array from base64 bytes, after checking that their length matches the shape."""
    kind = data["__nd__"]
    if kind not in _WIRE or not isinstance(data["b64"], str) or not isinstance(data.get("shape"), list):
        raise EncodingError("malformed value")
    shape = [int(s) for s in data["shape"]]
    if len(shape) > 32 or any(s < 0 or s > MAX_ITEMS for s in shape):  # an empty array of 10^9 rows too
        raise EncodingError("malformed value")
    size = 1
    for s in shape:
        size *= s
    if size > MAX_ITEMS:
        raise EncodingError("the answer is too large", "large")
    try:
        raw = base64.b64decode(data["b64"].encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise EncodingError("malformed value") from None
    if len(raw) != size * _WIRE[kind].itemsize:
        raise EncodingError("malformed value")
    array = np.frombuffer(raw, dtype=_WIRE[kind]).astype(
        {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64}[kind])  # a copy, in native order
    if kind == "b" and np.any(np.frombuffer(raw, dtype=np.uint8) > 1):
        raise EncodingError("malformed value")
    return array.reshape(shape)


def _scalar(item: Any) -> Any:
    if isinstance(item, dict):
        if "__float__" in item:
            return float(item["__float__"])
        if "__int__" in item:
            return int(str(item["__int__"]))
        raise EncodingError("malformed value")
    return item


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, allow_nan=False)


def loads(line: str) -> dict[str, Any]:
    message = json.loads(line)
    if not isinstance(message, dict):
        raise EncodingError("malformed message")
    return message

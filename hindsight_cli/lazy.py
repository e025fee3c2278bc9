"""``once``: a value worked out when first read, then kept on the instance (``functools``'
``cached_property`` without its lock).

Python 3.11's ``cached_property`` works a value out under one lock for the attribute of every
instance of the class: while one search read its query's identifiers (0.2 s for a 64 KB query),
every other search of the process, another agent's on a shared server, waited for that lock to read
its own (review AM). 3.12 dropped the lock; this is 3.12's behaviour on every version: two threads
reading one instance's value at once may both work it out, and one of the equal values is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

Value = TypeVar("Value")


class once(Generic[Value]):  # noqa: N801 - used as a decorator, like cached_property
    def __init__(self, func: Callable[[Any], Value]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[Value]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> Value: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        # a non-data descriptor: once kept in the instance's dictionary, that answers
        value = instance.__dict__[self.name] = self.func(instance)
        return value

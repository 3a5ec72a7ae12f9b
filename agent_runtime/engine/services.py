"""The services one run's actions share: one object of each type, made on first use, closed together.

    fetcher = ctx.services.get(Fetcher, lambda: Fetcher(limits))   # a Fetcher, to the type checker too
    ledger = ctx.services.peek(Ledger)                             # only if an action already made it
    ctx.services.provide(Browser, shared, close=False)             # one made elsewhere, not closed here
    await services.aclose()                                        # at the run's end, newest first

A service is known by its class, not by a string, so every look-up is typed; the engine that holds
them knows none of their classes (the actions define them). Whatever has an `aclose()` coroutine
(a connection pool, a browser) is closed when the run ends, in the reverse order of creation, by
one AsyncExitStack, also after a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, cast, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class _Closable(Protocol):
    def aclose(self) -> Awaitable[None]: ...


class Services:
    def __init__(self, parent: Services | None = None) -> None:
        self._made: dict[type, object] = {}
        self._parent = parent
        self._closing: contextlib.AsyncExitStack = (
            parent._closing if parent is not None else contextlib.AsyncExitStack()
        )

    def scoped(self) -> Services:
        """A layer for one delegated task (a File operation, a research task): what it `provide`s
        is its own (the text attached to this operation, while another runs at the same time);
        everything else is the run's, made in the run's layer."""
        return Services(self)

    def get(self, kind: type[T], make: Callable[[], T]) -> T:
        """The run's `kind`, made by `make()` the first time it is asked for."""
        if kind in self._made:
            return cast(T, self._made[kind])
        if self._parent is not None:
            return self._parent.get(kind, make)
        return self.provide(kind, make())

    def provide(self, kind: type[T], service: T, *, close: bool = True) -> T:
        """Make `service` the run's `kind` (made elsewhere: a test's double, a browser shared by
        several runs); `close=False` leaves closing it to whoever made it."""
        self._made[kind] = service
        if close and isinstance(service, _Closable):
            self._closing.push_async_callback(service.aclose)
        return service

    def peek(self, kind: type[T]) -> T | None:
        """The run's `kind` if it was made, else None (nothing is made)."""
        if kind in self._made:
            return cast(T, self._made[kind])
        return self._parent.peek(kind) if self._parent is not None else None

    async def aclose(self) -> None:
        """Close every service that can be closed, newest first; the run can make them again after."""
        if self._parent is not None:
            raise RuntimeError("a scoped layer is closed with the run's services")
        self._made.clear()
        closing, self._closing = self._closing, contextlib.AsyncExitStack()
        await closing.aclose()

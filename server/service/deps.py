"""FastAPI dependencies: the app state, and `require(action)`, checked before the body is read.

`require(action)` authenticates the bearer key and checks its role. Every router declares it
(`dependencies=[Depends(require(...))]`) so OpenAPI lists the bearer scheme and /docs has an
Authorize button; `AuthFirstRoute` runs those same dependencies before FastAPI reads and
validates the body, so a caller without the role gets 401/403, never a 422 about a body it may
not send.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from server.core.errors import StoreError
from server.query.answer import Engine
from server.service.auth import Caller, authenticate, authorize
from server.service.state import AppState

bearer = HTTPBearer(auto_error=False, description="API key: `Authorization: Bearer KEY`")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.citegate
    return state


State = Annotated[AppState, Depends(app_state)]


def engine_of(state: AppState) -> Engine:
    if state.engine is None:
        raise StoreError(f"not ready: {state.error or 'models and store are still loading'}")
    return state.engine


class Require:
    """The dependency behind `require(action)`: the authorized Caller, or 401/403."""

    def __init__(self, action: str) -> None:
        self.action = action

    async def __call__(self, request: Request, credentials: Credentials) -> Caller:
        key = request.scope.setdefault("citegate.callers", {})
        if self.action not in key:  # once per request, whether run early or as a dependency
            header = f"Bearer {credentials.credentials}" if credentials else None
            keys = app_state(request).keys
            key[self.action] = authorize(authenticate(keys, header), self.action)
        caller: Caller = key[self.action]
        return caller


@functools.cache
def require(action: str) -> Require:
    """One instance per action, so FastAPI resolves it once per request wherever declared."""
    return Require(action)


class AuthFirstRoute(APIRoute):
    """Runs the route's `Require` dependencies before the body is read or validated."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        gates: list[Require] = []
        for sub in self.dependant.dependencies:
            if isinstance(sub.call, Require) and sub.call not in gates:
                gates.append(sub.call)

        async def authorized_first(request: Request) -> Response:
            credentials = await bearer(request)
            for gate in gates:
                await gate(request, credentials)
            return await handler(request)

        return authorized_first if gates else handler


def gated(route: APIRoute) -> bool:
    """Whether `route` requires a role (the scope-matrix test checks every route)."""
    return any(isinstance(sub.call, Require) for sub in route.dependant.dependencies)

"""Errors of the debug-gym client. Every server error keeps the server's code (``DG_...``)."""

from __future__ import annotations

from typing import Any


class DebugGymError(Exception):
    """A request failed. ``code`` is the server's error code (``DG_...``), ``status`` the HTTP status (0: no answer)."""

    def __init__(self, message: str, *, code: str = "DG_CLIENT", status: int = 0, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.details = details or {}

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.status == 0 else f"{self.code} (HTTP {self.status}): {self.message}"


class ServerUnavailableError(DebugGymError):
    """No answer: the server is not running, went away mid-request, or the connection broke."""


class SessionLostError(DebugGymError):
    """The server no longer holds the session (closed, reaped after the idle TTL, or the server restarted)."""


class EpisodeDoneError(DebugGymError):
    """A step after the episode ended: call ``reset()``."""


class StepTimeoutError(DebugGymError):
    """The step ran past the server's limit (or ``step_timeout``): it was cancelled and the episode ended."""


class ServerFullError(DebugGymError):
    """The server holds its maximum of sessions, or its sandboxes' limits use its whole budget
    (``DG_SERVER_BUDGET_EXHAUSTED``). ``retry_after`` is the server's advice, in seconds."""

    @property
    def retry_after(self) -> float:
        return float(self.details.get("retry_after_s", 5))


_BY_CODE: dict[str, type[DebugGymError]] = {
    "DG_UNKNOWN_SESSION": SessionLostError,
    "DG_SESSION_CLOSED": SessionLostError,
    "DG_EPISODE_DONE": EpisodeDoneError,
    "DG_STEP_TIMEOUT": StepTimeoutError,
    "DG_SERVER_FULL": ServerFullError,
    "DG_SERVER_BUDGET_EXHAUSTED": ServerFullError,
}


def error_from_reply(status: int, payload: Any, fallback: str) -> DebugGymError:
    """The error a server reply ``{"error": {"code", "message", ...}}`` stands for."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return DebugGymError(f"{fallback} (HTTP {status}): {str(payload)[:500]}", code="DG_HTTP", status=status)
    details = {key: value for key, value in error.items() if key not in ("code", "message")}
    code = str(error.get("code", "DG_HTTP"))
    return _BY_CODE.get(code, DebugGymError)(str(error.get("message", fallback)), code=code, status=status, details=details)

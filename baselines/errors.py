"""Exceptions raised by the baselines package: one root, :class:`BaselineError`.

Each also derives from the built-in a caller would catch (``ValueError`` for bad input,
``ConnectionError`` for an endpoint that cannot be reached), and a textualization that does not parse
is a :class:`graphkit.errors.TransitError` too, as a Metro Data file that does not parse is.
"""

from __future__ import annotations

from graphkit.errors import TransitError

__all__ = [
    "BaselineError",
    "ClientError",
    "EndpointRefused",
    "EndpointUnreachable",
    "OutputFileError",
    "InvalidTextualization",
]


class BaselineError(Exception):
    """Base class of every error the baselines package raises."""


class ClientError(BaselineError):
    """Base class of the model client's errors."""


class EndpointRefused(ClientError, ValueError):
    """The endpoint answered 401, 403 or 404: the key, URL or model name is wrong; the run stopped."""


class EndpointUnreachable(ClientError, ConnectionError):
    """No connection could be made to the endpoint after every retry; the run stopped."""


class OutputFileError(ClientError, ValueError):
    """The prediction file cannot be resumed (a bad row before its end, another run writing to it, or rows of
    another mode or other settings)."""


class InvalidTextualization(BaselineError, TransitError, ValueError):
    """A text that is not a well-formed textualization, or a prompt without a map block."""

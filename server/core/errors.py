"""A small error hierarchy; every message says what to do next (STYLE habit 8).

The HTTP layer maps these to status codes; the CLI prints the message and exits non-zero.
"""

from __future__ import annotations


class CitegateError(Exception):
    """Base of every error citegate raises on purpose."""

    http_status = 500
    code = "internal_error"


class ConfigError(CitegateError):
    """A setting or configuration file is invalid."""

    http_status = 500
    code = "config_error"


class InputError(CitegateError):
    """The caller sent something unusable: empty question, malformed body, bad file."""

    http_status = 422
    code = "bad_input"


class TooLargeError(InputError):
    """A request body over `service.max_body_bytes` (declared or, when chunked, as read)."""

    http_status = 413
    code = "too_large"


class NotFoundError(CitegateError):
    """An id (document, snippet, trace) is unknown."""

    http_status = 404
    code = "not_found"


class ModelUnavailableError(CitegateError):
    """A model package or weights folder is missing."""

    http_status = 503
    code = "model_unavailable"


class StoreError(CitegateError):
    """The vector store cannot be opened or answered wrongly."""

    http_status = 503
    code = "store_unavailable"


class StoreLockedError(StoreError):
    """Another live process owns the embedded store (SPEC 2.5)."""

    code = "store_locked"


class StoreCorruptError(StoreError):
    """The embedded store's files cannot be read."""

    code = "store_corrupt"


class IndexMismatchError(StoreError):
    """The index was built with another embed model, analyzer or chunker (index identity)."""

    http_status = 409
    code = "index_mismatch"


class EmptyIndexError(StoreError):
    """Nothing has been ingested yet."""

    http_status = 409
    code = "empty_index"


class LLMUnavailableError(CitegateError):
    """The configured OpenAI-compatible endpoint cannot be reached or answered wrongly."""

    http_status = 503
    code = "llm_unavailable"


class AuthError(CitegateError):
    """No key, or an unknown key."""

    http_status = 401
    code = "unauthorized"


class ForbiddenError(CitegateError):
    """A known key whose role or scope does not allow this."""

    http_status = 403
    code = "forbidden"

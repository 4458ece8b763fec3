"""The query path, the contracts it owns, and the HTTP service."""

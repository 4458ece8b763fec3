"""Ingestion: load, normalise, chunk, hash and write documents (SPEC 2)."""

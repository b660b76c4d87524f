"""The catalog of a store (sqlite: metadata, verdicts, full-text index) and the query language."""

"""Fuzzy ranking of picker rows and the full-text catalog (no Textual import)."""

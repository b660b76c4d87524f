"""Benchmarks for the budgets in design.md section 4."""

"""Worked examples that stand on the project's packages (docs/learning.md)."""

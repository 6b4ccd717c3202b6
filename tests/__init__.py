"""The test suite: a tree that mirrors the packages (docs/testing.md, "Where a test goes")."""

"""Tests of the suite's own helpers (strategies, assertions, the results collector); they need no backend."""

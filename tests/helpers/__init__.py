"""Helpers shared by the tests that need them (fixtures live in tests/conftest.py)."""

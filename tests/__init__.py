"""brain's tests, in rooms that mirror the packages (docs/architecture.md, Tests)."""

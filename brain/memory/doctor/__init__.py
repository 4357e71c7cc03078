"""The doctor: what `brain doctor` reports across every domain, and `brain init` / `brain redact`."""

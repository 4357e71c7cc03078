"""Following file events: `brain watch`, and the freshness check before a read.

Modules: `watch` (`Watcher` and `follow`: keep the indexes current while notes change in any
editor, beating `index/heartbeat.py` for other processes) and `fresh` (before a read, the catalog
brought up to date with the files as cheaply as is safe: trust a current watcher, re-check the
paths this process's own file events reported, or stat every file). Nothing is imported here, on
purpose: importing the package is free and cannot start a cycle.
"""

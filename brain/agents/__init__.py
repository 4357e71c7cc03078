"""brain inside coding agents: their settings (install, uninstall, status) and the hooks they run.

`settings` merges brain's entries into an agent's settings (pure: data in, data out), `install`
reads and writes the files, `context` says what the agent is handed, `runtime` runs a hook.
"""

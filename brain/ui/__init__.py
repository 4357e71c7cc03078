"""`brain ui`: a read-only viewer of one vault in the browser, the fourth front end beside the CLI,
the MCP server and the agents' hooks.

Each page is a function of the open vault (`pages/`) that returns its data, made by the same
services and views the other front ends call; `app.py` shows that data through a template
(`templates/`), or as JSON at the same address ending in `.json`, so a script reads what a person
sees (as datasette does). It changes no note; it binds 127.0.0.1 unless told otherwise, and then
only with a token (`guard.py`); every asset ships in `static/`, and nothing is fetched from elsewhere.
"""

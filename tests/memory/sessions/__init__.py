"""Tests of brain/memory/sessions/: the session protocol, log extraction, redaction."""

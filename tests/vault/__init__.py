"""Tests of the vault on disk: vault.py, vault_init.py, note_files.py, history.py."""

"""Any note of the vault: read, write, edit, move and delete, through `Vault` (files) and the corpus.

The front ends call `service` for any note, `listing` to list them, `history` for their versions
and `names` for the names they answer to (shell completion).

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.notes import service`, so importing the package costs
nothing and cannot make an import cycle.
"""

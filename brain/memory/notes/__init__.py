"""Any note of the vault: read, write, edit, move and delete, through `Vault` (files) and the corpus.

Modules:
- `service`: read, write, edit, move and delete any note; the typed services build on the same vault calls.

What the other layers use:
`service.read_note`, `write_note`, `edit_note` (its operation a `brain.notes.edit.EditOperation`),
`move_note`, `delete_note`, `parse_fields` (`key=value` options); `Written` is what a write returns.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.notes import service`, so importing the package costs
nothing and cannot make an import cycle.
"""

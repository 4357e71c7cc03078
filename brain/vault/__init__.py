"""The vault: the folder of notes, its files, their history and the vault's own settings (`.brain/`)."""

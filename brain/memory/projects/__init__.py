"""Projects: which project a note belongs to (its git remote), and a project's scope."""

"""`python -m brain` runs the `brain` command."""

from brain.cli import main

if __name__ == "__main__":
    main()

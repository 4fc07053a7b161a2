"""`python -m tern` is the `tern` command."""

from tern.cli import main

main()

"""`python -m citegate` runs the CLI."""

from citegate.cli import main

main()

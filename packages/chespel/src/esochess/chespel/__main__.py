"""`python -m esochess.chespel` is the `chespel` command."""

from esochess.chespel.cli import main

main(prog_name="chespel")

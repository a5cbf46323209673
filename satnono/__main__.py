"""`python -m satnono`: the same command line as the `satnono` script."""

from satnono.cli import main

main()

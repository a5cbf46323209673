"""satnono: a nonogram solver built on exact line propagation, SAT and constraint programming.

The package is layered: formats -> model -> propagate -> backends -> solutions -> render/cli.
"""

__version__ = "0.1.0"

"""The residual puzzle as formulas: each clue's automaton (the one definition of what a clue
allows) and the CNF encodings of encodings/ built from it."""

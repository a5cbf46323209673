"""Certificates: writing them (`certify`: a verdict with a DRUP proof of the whole puzzle's
CNF) and checking them (`check`, trusting none of the solvers)."""

"""How satnono runs work it may have to stop: deadlines, forked children, races, SAT solvers.

deadline (a time limit shared by a call), child (a forked process killed on demand), race (the
first of several children to answer wins), stoppable and sat_solvers (PySAT solvers stopped
by the deadline or Ctrl-C through their public interrupt()), solver_kinds (which PySAT
solvers there are and what each can do), served (a solver in a forked child), dask (a
cluster, and the one loop that submits tasks and collects their results). Nothing here knows
nonograms.
"""

"""What every other part shares, importing nothing of satnono's above it: the puzzle model
(clues, palette, goal), cells' domains and decided grids, the verdict, progress, the optional
parts, every argument checked once, and the independent checker every solution passes."""

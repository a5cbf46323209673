"""satnono's version, in a module of its own.

Kept apart from the package's __init__ so that modules the API imports (fetch's User-Agent,
batch's result rows) can name it without importing the API back (no import cycle).
"""

__version__ = "0.1.0"

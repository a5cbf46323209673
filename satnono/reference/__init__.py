"""The Python reference the engine is held to: the exact line solver, propagation with its
trail, and the counting search. Only the tests (and the tools that measure the engine against
it) import these modules; the live path reaches line logic only through satnono.logic.native."""

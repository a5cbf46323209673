"""Line logic on the live path: the native engine (engine/, Rust; `native` is the one module
that imports it) and the independent components of a residual. The Python line solver is in
satnono.reference, which only the tests use."""

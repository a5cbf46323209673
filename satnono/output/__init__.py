"""What answers look like outside: pictures (SVG, PNG), text grids for a terminal, and the
JSON objects every front end shares (`contract`)."""

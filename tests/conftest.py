"""Fixtures shared by the test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support import children


@pytest.fixture
def no_children_left() -> Iterator[None]:
    """The test starts with no child process of this one, and leaves none behind."""
    assert children() == [], "a child was running before the test"
    yield
    assert children() == []

"""Modules and models loaded inside `long_lived` are left out of the collector's later passes, in a process that
runs one command; elsewhere nothing is frozen."""
import gc
import weakref

import pytest

from picforge import long_lived as long_lived_module
from picforge.long_lived import long_lived


class Loaded:
    """Stands for a loaded model's objects."""


class Cycle:
    """Garbage that only the collector frees: it refers to itself."""

    def __init__(self):
        self.me = self


def frozen(obj):
    return not any(tracked is obj for tracked in gc.get_objects())  # the permanent generation is not listed


@pytest.fixture
def one_command(monkeypatch):
    monkeypatch.setattr(long_lived_module, "_one_command", True)


def test_objects_loaded_inside_are_frozen_and_collection_resumes(one_command):
    assert gc.isenabled()
    with long_lived():
        assert not gc.isenabled()
        model = Loaded()
    assert gc.isenabled() and frozen(model)


def test_collection_left_off_stays_off(one_command):
    gc.disable()
    try:
        with long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_garbage_from_before_is_collected_not_frozen(one_command):
    garbage = Cycle()
    collected = weakref.ref(garbage)
    del garbage
    with long_lived():
        pass
    assert collected() is None


def test_outside_a_one_command_process_nothing_is_frozen():
    with long_lived():
        assert gc.isenabled()
        model = Loaded()
    assert not frozen(model)

"""Modules and models loaded inside `long_lived` are left out of the collector's later passes."""
import gc
import weakref

from picforge.long_lived import long_lived


class Loaded:
    """Stands for a loaded model's objects."""


def test_objects_loaded_inside_are_frozen_and_collection_resumes():
    assert gc.isenabled()
    with long_lived():
        assert not gc.isenabled()
        model = Loaded()
    assert gc.isenabled()
    assert not any(obj is model for obj in gc.get_objects())  # in the permanent generation, which passes skip
    assert gc.get_freeze_count() > 0


def test_collection_left_off_stays_off():
    gc.disable()
    try:
        with long_lived():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


class Cycle:
    """Garbage that only the collector frees: it refers to itself."""

    def __init__(self):
        self.me = self


def test_garbage_from_before_is_collected_not_frozen():
    garbage = Cycle()
    collected = weakref.ref(garbage)
    del garbage
    with long_lived():
        pass
    assert collected() is None

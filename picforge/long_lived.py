"""What lives as long as the process (imported modules, loaded models), kept out of the cyclic garbage collector's
full passes, which would otherwise walk all of it again each time (`bench/mine_end_to_end.py` prints their cost)."""
import contextlib
import gc


@contextlib.contextmanager
def long_lived():
    """Load modules and models inside: no collector pass runs meanwhile, and every object alive at the end moves
    to the permanent generation (later passes skip it; reference counting still frees it). Garbage from before is
    collected first, so it is not kept (a pass over what is not frozen yet)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.freeze()

"""What lives as long as the process (imported modules, loaded models), kept out of the cyclic garbage collector's
full passes, which would otherwise walk all of it again each time (`bench/mine_end_to_end.py` prints their cost).
Only in a process that runs one command and ends (`one_command_process`): elsewhere (the test suite, a notebook
calling `picforge.cli.main`) an object frozen while alive that dies later in a reference cycle would never be freed."""
import contextlib
import gc

_one_command = False


def one_command_process():
    """Declare that this process runs one command and then ends (the `picforge` command): `long_lived` freezes."""
    global _one_command
    _one_command = True


@contextlib.contextmanager
def long_lived():
    """Load modules and models inside. In a one-command process no collector pass runs meanwhile, and every object
    alive at the end moves to the permanent generation (later passes skip it; reference counting still frees it);
    garbage from before is collected first, so it is not kept. Elsewhere it changes nothing."""
    if not _one_command:
        yield
        return
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.freeze()

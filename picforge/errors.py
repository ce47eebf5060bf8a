"""Errors picforge reports to the user as one clear line (file, place, fix) instead of a traceback."""


class InputError(Exception):
    """Bad input: the message names the file, the line/page/row and how to fix it."""


class NothingToDo(Exception):
    """A step found nothing left to do: reported as one line, and the command succeeds (exit 0)."""

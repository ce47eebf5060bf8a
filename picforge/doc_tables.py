"""The docs' command and option tables, derived from the registries (picforge.verbs, picforge.stages): each sits in
a Markdown file between `<!-- generated: KIND WORDS -->` and `<!-- end generated -->` and is rewritten by
`make docs` (docs/tables.py); a test fails when a committed table differs from what the registries say."""
import argparse
import re

from picforge import paths, stages, stage_registry, verbs

# A generated block: its opening mark (kind and words), its body and its closing mark.
BLOCK = re.compile(r"(<!-- generated: (?P<kind>[a-z]+) (?P<words>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)",
                   re.S)
# The files whose tables are generated: the README and every page of docs/.
FILES = ("README.md", "docs/*.md")
# argparse's "(default X)" that picforge.stages.add_flags appends to a help text (the table has its own column).
DEFAULT_IN_HELP = re.compile(r"\s*\(default:? [^()]*(?:\([^()]*\)[^()]*)*\)$")


def cell(text):
    """`text` as one Markdown table cell (no line break, `|` escaped)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def verb_parser(verb):
    """A parser holding every option of `verb`, as its command line has them."""
    parser = argparse.ArgumentParser(prog=" ".join(verb.words), add_help=False)
    verb.add_arguments(parser)
    return parser


def shown_default(action):
    """The default column of an option: required, off/on for a switch, the value, or — for none."""
    if action.required:
        return "(required)"
    if isinstance(action, (argparse._StoreTrueAction, argparse.BooleanOptionalAction)):
        return "on" if action.default else "off"
    if action.default in (None, [], ()):
        return "—"
    value = ",".join(map(str, action.default)) if isinstance(action.default, (list, tuple)) else action.default
    return f"`{value}`"


def options_table(verb):
    """`| option | default | meaning |`: every option of `verb` with its help, in the order its parser adds them."""
    rows = ["| option | default | meaning |", "| --- | --- | --- |"]
    for action in verb_parser(verb)._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        flags = ", ".join(action.option_strings) + (f" {action.metavar}" if isinstance(action.metavar, str) else "")
        meaning = (action.help or "").replace("%%", "%")
        meaning = DEFAULT_IN_HELP.sub("", meaning) if action.default is not None else meaning
        if action.choices and not isinstance(action, argparse.BooleanOptionalAction):
            meaning += f" (one of {', '.join(map(str, action.choices))})"
        rows.append(f"| `{cell(flags)}` | {cell(shown_default(action))} | {cell(meaning)} |")
    return "\n".join(rows)


def writes_text(verb):
    """What `verb` creates, from its declaration: the stage of --run or the --out its Writes declares, the other
    declared outputs of its parser, else its --run (which it adds to) or nothing (a verb that only reads)."""
    found = []
    if verb.writes is not None and verb.writes.kind == "stage":
        found.append(f"stage `{verb.writes.default}` of `--run`")
    actions = verb_parser(verb)._actions
    for action in sorted(actions, key=lambda action: getattr(action, "picforge_writes", None) is None):  # --out first
        spec = paths.declared_output(action)
        if spec is None:
            continue
        flag = max(action.option_strings, key=len)
        declared = getattr(action, "picforge_writes", None)
        what = {"run": "a run", "release": "a release"}.get(spec.kind, f"a {spec.kind}")
        if declared is not None and declared.default:
            what += f", default `{declared.shown_default}`"
        elif not action.required:
            what += ", optional"
        found.append(f"`{flag}` ({what})")
    if found:
        return "; ".join(found)
    if verb.defaults.get("read_only"):
        return "nothing (reads only)"
    return "its `--run` (adds to it)" if "--run" in verbs.option_strings(verb.words) else "—"


def chosen_verbs(words):
    """The verbs `words` names, in the order `picforge --help` lists them: `all` (every area picforge itself
    declares), an area, or a group of one (`annotate mturk`)."""
    found = verbs.areas()
    names = [name for name in found.areas if found.distributions[name] == verbs.CORE_DISTRIBUTION] \
        if words == ("all",) else [words[0]]
    chosen = []
    for name in names:
        for (verb_name, target), verb in sorted(verbs.verbs_of(name).items(), key=lambda item: (item[0][0],
                                                                                                 item[0][1] or "")):
            if verb.words[:len(words)] == words or words == ("all",):
                chosen.append(verb)
    return chosen


def commands_table(words):
    """`| command | does | writes |`: every verb `words` names (chosen_verbs), by the words that reach it."""
    rows = ["| command | does | writes |", "| --- | --- | --- |"]
    for verb in chosen_verbs(words):
        does = verb.help or re.sub(r"^`[^`]*`: ", "", (verb.description or "").split(". ")[0]).rstrip(".")
        rows.append(f"| `picforge {' '.join(verbs.canonical_words(verb))}` | {cell(does)} | "
                    f"{cell(writes_text(verb))} |")
    return "\n".join(rows)


def stages_table(words):
    """picforge.stages.options_table of the Stage declarations the verb `words` produces, in declaration order."""
    command = f"picforge {' '.join(verbs.canonical_words(verbs.find(words)))} "
    declared = list(dict.fromkeys(stage for stage in stages.REGISTRY.values()
                                  if stage_registry.PRODUCED_BY.get(stage.name, "").startswith(command)))
    return stages.options_table(declared)


KINDS = {"commands": commands_table, "options": lambda words: options_table(verbs.find(words)),
         "stages": stages_table}


def render(kind, words):
    """The table a `<!-- generated: KIND WORDS -->` block holds now."""
    if kind not in KINDS:
        raise ValueError(f"generated table kind {kind!r}: one of {', '.join(KINDS)}")
    words = tuple(words.split())
    if kind != "commands" and verbs.find(words) is None or kind == "commands" and not chosen_verbs(words):
        raise ValueError(f"generated {kind} table: no verb `picforge {' '.join(words)}`")
    return KINDS[kind](words)


def refreshed(text):
    """`text` with each generated block's body replaced by the table the registries give now."""
    verbs.every_verb()  # every area's verbs (and so its stages) registered
    return BLOCK.sub(lambda found: f"{found.group(1)}{render(found['kind'], found['words'])}\n{found.group(5)}",
                     text)


def blocks(text):
    """[(kind, words, body)] of every generated block in `text`."""
    return [(found["kind"], found["words"], found["body"]) for found in BLOCK.finditer(text)]

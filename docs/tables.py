"""`make docs`: rewrite every generated table of README.md and docs/*.md from the registries (picforge.doc_tables);
`--check` changes nothing and exits 1 naming each file whose tables drifted."""
import glob
import pathlib
import sys

from picforge import doc_tables

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv):
    check = argv == ["--check"]
    drifted = []
    for path in sorted({p for pattern in doc_tables.FILES for p in glob.glob(str(ROOT / pattern))}):
        text = pathlib.Path(path).read_text(encoding="utf-8")
        fresh = doc_tables.refreshed(text)
        if fresh != text:
            drifted.append(path)
            if not check:
                pathlib.Path(path).write_text(fresh, encoding="utf-8")
    for path in drifted:
        print(f"{path}: {'tables differ from the registries; run `make docs`' if check else 'tables rewritten'}")
    return 1 if check and drifted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

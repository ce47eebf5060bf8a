"""The import graph between a repository's modules, read with `ast`: every import statement (at module top or inside
a function), `importlib.import_module("…")`/`__import__("…")` literals, and strings naming a module (the tables
that are handed to importlib, such as `"release.cli"` or a `"package.module:function"` hook)."""
import ast
import dataclasses


@dataclasses.dataclass(frozen=True)
class Edge:
    """One place where module `importer` imports module `imported`."""

    importer: str
    imported: str
    path: str
    line: int
    how: str  # "top" (at module top), "lazy" (inside a function or class body) or "string" (a module's name)

    def __str__(self):
        return f"{self.importer} -> {self.imported} ({self.path}:{self.line}, {self.how})"


def module_files(root, packages):
    """{dotted module name: path} of every .py file of `packages` under `root` (a package is its __init__)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _nearest_module(name, modules):
    """The longest prefix of dotted `name` that is one of `modules` (`a.b.c` → `a.b` when c is a name in a.b)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _absolute(node, module, is_package):
    """The dotted base of `from … import` node, relative levels resolved against `module`."""
    if not node.level:
        return node.module
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[:len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _named_modules(node, module, is_package):
    """The dotted names an AST node imports or names, or [] for a node that imports nothing."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = _absolute(node, module, is_package)
        return [f"{base}.{alias.name}" for alias in node.names]
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if called in ("import_module", "__import__"):
            return [node.args[0].value]
    return []


def _lazy_nodes(tree):
    """The ids of the nodes that sit inside a function or class body (run later, not at import)."""
    lazy = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            lazy.update(id(inner) for inner in ast.walk(node) if inner is not node)
    return lazy


def module_edges(root, packages):
    """Every Edge between two modules of `packages` under `root`, one per (importer, imported), its first place."""
    modules = module_files(root, packages)
    edges = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lazy, is_package = _lazy_nodes(tree), path.name == "__init__.py"
        for node in ast.walk(tree):
            names, how = _named_modules(node, module, is_package), None
            if names:
                how = "lazy" if id(node) in lazy else "top"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
                named = node.value.split(":", 1)[0]
                names, how = ([named], "string") if named in modules else ([], None)
            for name in names:
                imported = _nearest_module(name, modules)
                if imported and imported != module and (module, imported) not in edges:
                    edges[(module, imported)] = Edge(module, imported, str(path.relative_to(root)), node.lineno, how)
    return sorted(edges.values(), key=lambda edge: (edge.importer, edge.imported))


def cycles(edges):
    """One cycle (a list of Edges, the last leading back to the first's importer) per strongly connected group of
    modules that import each other, found with Tarjan's algorithm; [] when the graph has none."""
    graph = {}
    for edge in edges:
        graph.setdefault(edge.importer, []).append(edge)
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def connect(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph.get(node, ()):
            if edge.imported not in index:
                connect(edge.imported)
                low[node] = min(low[node], low[edge.imported])
            elif edge.imported in on_stack:
                low[node] = min(low[node], index[edge.imported])
        if low[node] == index[node]:
            group = set()
            while node not in group:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_in(group, graph) for group in groups]


def _cycle_in(group, graph):
    """A shortest cycle through the first module of a strongly connected `group` (breadth-first, within it)."""
    start = min(group)
    paths, seen = [[]], {start}
    while paths:
        path = paths.pop(0)
        for edge in graph[path[-1].imported if path else start]:
            if edge.imported == start:
                return path + [edge]
            if edge.imported in group and edge.imported not in seen:
                seen.add(edge.imported)
                paths.append(path + [edge])
    raise AssertionError(f"no cycle through {start} in {sorted(group)}")


def describe(cycle):
    """A cycle as lines: `a -> b (file:line, how)` per edge."""
    return "\n".join(f"  {edge}" for edge in cycle)

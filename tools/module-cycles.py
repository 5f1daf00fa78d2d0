#!/usr/bin/env python3
"""Fails if a crate's top-level modules import each other in a cycle.

Each directory given (a crate's `src/`) is read as a graph: a node per top-level module (a file
`src/x.rs` or a folder `src/x/`), an edge x -> y when any file of x names `crate::y` (in a `use`
or a path). Test modules count too: a test that reaches upwards is still a dependency. The
crate root (`lib.rs`, `main.rs`) only wires modules together and is left out. Prints each
cycle found and exits 1; prints the order of the modules, leaves first, and exits 0 if none.

    python3 tools/module-cycles.py api/src domain/src
"""
import re
import sys
from pathlib import Path

ROOTS = {"lib.rs", "main.rs"}
PATH = re.compile(r"\bcrate::(?:\{\s*)?([a-z_][a-z0-9_]*)")
GROUP = re.compile(r"\bcrate::\{([^}]*)\}", re.S)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def strip_tests(text: str) -> str:
    """Removes each `#[cfg(test)]` item: the attribute up to the end of its braces or `;`."""
    out = []
    at = 0
    for match in re.finditer(r"#\[cfg\(test\)\]", text):
        if match.start() < at:
            continue
        out.append(text[at : match.start()])
        depth = 0
        i = match.end()
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            elif c == ";" and depth == 0:
                i += 1
                break
            i += 1
        at = i
    out.append(text[at:])
    return "".join(out)


def graph(src: Path) -> dict[str, set[str]]:
    modules: dict[str, list[Path]] = {}
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        if len(rel.parts) == 1 and rel.name in ROOTS:
            continue
        if rel.name == "tests.rs" or "tests" in rel.parts[:-1]:
            continue
        top = rel.parts[0].removesuffix(".rs")
        modules.setdefault(top, []).append(path)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, files in modules.items():
        for path in files:
            text = strip_tests(strip_comments(path.read_text()))
            names = set(PATH.findall(text))
            for group in GROUP.findall(text):
                names |= {n.strip().split("::")[0] for n in group.split(",")}
            edges[module] |= {n for n in names if n in modules and n != module}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def order(edges: dict[str, set[str]]) -> list[str]:
    done: list[str] = []
    left = dict(edges)
    while left:
        ready = sorted(m for m, deps in left.items() if deps <= set(done))
        done += ready
        for m in ready:
            del left[m]
    return done


def self_test() -> None:
    """The check finds a loop it must find, and ignores one through test code only."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp)
        (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
        (src / "a.rs").write_text("use crate::b::B;\n")
        (src / "b").mkdir()
        (src / "b" / "mod.rs").write_text(
            "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n"
        )
        assert cycles(graph(src)) == [], "a loop through test code only is not a cycle"
        (src / "b" / "c.rs").write_text("// crate::a in a comment\nfn f() { crate::{a::x}; }\n")
        assert cycles(graph(src)) == [["a", "b"]], "a -> b -> a is a cycle"


def main() -> int:
    self_test()
    failed = False
    for arg in sys.argv[1:] or ["api/src", "domain/src"]:
        edges = graph(Path(arg))
        found = cycles(edges)
        for component in found:
            failed = True
            links = [
                f"{a} -> {b}" for a in component for b in sorted(edges[a]) if b in component
            ]
            print(f"{arg}: import cycle among {', '.join(component)}: {'; '.join(links)}")
        if not found:
            print(f"{arg}: no import cycle; leaves first: {' '.join(order(edges))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

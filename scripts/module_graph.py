#!/usr/bin/env python3
"""The module dependency graph of crates/runner/src, and its cycles.

Usage: python3 scripts/module_graph.py [--list]

Prints docs/module-graph.md (a Mermaid `graph TD` block) on standard output,
or with --list a plain adjacency list, and exits with status 1, naming every
cycle on standard error, if the modules depend on each other in a cycle.
Standard library only.

Nodes are the top-level modules of the crate (`report`, `app`, ...) and the
submodules of its directory modules (`validate::grid`, `plot::draw`, ...).
Module A depends on module B if A's source names B in a `use` or a path:
`crate::B`, `super::B`, `self::B`, or a bare `B::` where B is a child of A
(`use grid::expand` in validate/mod.rs). A path into B's items
(`crate::validate::Study`) counts as a dependency on B, and a path into a
submodule (`crate::validate::budget::x`) as one on the submodule. Code under
`#[cfg(test)]` (test modules, test-only items and files such as
plot/tests.rs) is left out, and so are comments and string literals.

Edges between a directory module (its mod.rs) and its own submodules are
drawn dotted and left out of the cycle check: the parent declares its
children and re-exports their items, and the children use the types the
parent defines; that is one module's inside, not a dependency between peers.
lib.rs (the module list) and main.rs (the binary) are not nodes.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "crates" / "runner" / "src"
REGENERATE = "python3 scripts/module_graph.py > docs/module-graph.md"


def strip_comments_and_strings(text):
    """The source with comments, string and char literals blanked out."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c in "rb" and re.match(r"(?:br|r)#*\"", text[i:i + 260]) and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            m = re.match(r"(?:br|r)(#*)\"", text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            m = re.match(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'", text[i:])
            if m:
                i += m.end()
                out.append("' '")
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")


def strip_test_items(code):
    """`code` without the items under `#[cfg(test)]`, and the names of the
    child modules it declares test-only (`#[cfg(test)] mod tests;`)."""
    test_children = []
    while True:
        m = CFG_TEST.search(code)
        if not m:
            return code, test_children
        i, depth = m.end(), 0
        while i < len(code):
            ch = code[i]
            if ch == ";" and depth == 0:
                i += 1
                break
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "{" and depth == 0:
                braces = 0
                while i < len(code):
                    if code[i] == "{":
                        braces += 1
                    elif code[i] == "}":
                        braces -= 1
                        if braces == 0:
                            break
                    i += 1
                i += 1
                break
            i += 1
        item = code[m.end():i]
        declared = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", item)
        if declared:
            test_children.append(declared.group(1))
        code = code[:m.start()] + " " + code[i:]


def use_paths(tree, prefix=()):
    """The paths a use tree names, each with the name it binds:
    `a::{b, c::{d as e, self}}` gives (a::b, b), (a::c::d, e) and (a::c, c)."""
    tree = tree.strip()
    if "{" not in tree:
        path, _, alias = tree.partition(" as ")
        segs = list(prefix) + [p for p in re.split(r"\s*::\s*", path.strip()) if p]
        if segs and segs[-1] == "self":
            segs.pop()
        bound = alias.strip() or (segs[-1] if segs else "")
        return [(tuple(segs), bound)]
    head, rest = tree.split("{", 1)
    head_segs = [p for p in re.split(r"\s*::\s*", head.strip()) if p]
    inner = rest.rsplit("}", 1)[0]
    items, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(inner[start:k])
            start = k + 1
    items.append(inner[start:])
    paths = []
    for item in items:
        if item.strip():
            paths.extend(use_paths(item, tuple(prefix) + tuple(head_segs)))
    return paths


def module_of(path):
    """The module path of a source file: validate/grid.rs is ('validate', 'grid')."""
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def build_graph():
    """(nodes, edges): edges maps a node to {target: is_hierarchy_edge}."""
    files = {}
    for path in sorted(SRC.rglob("*.rs")):
        if path.name in ("lib.rs", "main.rs") and path.parent == SRC:
            continue
        files[module_of(path)] = path
    code, test_only = {}, set()
    for module, path in files.items():
        text, children = strip_test_items(strip_comments_and_strings(path.read_text()))
        code[module] = text
        test_only.update(module + (c,) for c in children)
    for module in test_only:
        files.pop(module, None)
        code.pop(module, None)
    modules = set(files)

    def children(module):
        return {m[-1] for m in modules if len(m) == len(module) + 1 and m[:-1] == module}

    def absolute(module, segs, imported):
        """The crate-relative path `segs` names in `module`, or None outside the crate."""
        segs = [s for s in segs if s]
        if not segs:
            return None
        if segs[0] == "crate":
            absolute = segs[1:]
        elif segs[0] in ("super", "self"):
            base = list(module)
            while segs and segs[0] in ("super", "self"):
                if segs.pop(0) == "super":
                    base.pop()
            absolute = base + segs
        elif segs[0] in children(module):
            absolute = list(module) + segs
        elif segs[0] in imported:
            # A module brought into scope by a `use` (`use crate::cost::{self}`
            # makes `cost::constants::X` a path into crate::cost::constants).
            absolute = list(imported[segs[0]]) + segs[1:]
        else:
            return None
        return absolute

    def node(path):
        """The innermost module (node) on a crate-relative path."""
        best = None
        for k in range(1, len(path or ()) + 1):
            if tuple(path[:k]) in modules:
                best = tuple(path[:k])
        return best

    edges = {m: {} for m in modules}
    use_stmt = re.compile(r"\buse\s+([^;]*);")
    path_expr = re.compile(r"(?<![\w:])(\w+(?:\s*::\s*\w+)+)")
    for module, text in code.items():
        targets, imported = [], {}
        for m in use_stmt.finditer(text):
            for segs, bound in use_paths(m.group(1)):
                path = absolute(module, list(segs), {})
                targets.append(node(path))
                if path and tuple(path) in modules and bound not in ("*", ""):
                    imported[bound] = tuple(path)
        rest = use_stmt.sub(" ", text)
        for m in path_expr.finditer(rest):
            targets.append(node(absolute(module, re.split(r"\s*::\s*", m.group(1)), imported)))
        for t in targets:
            if t is None or t == module:
                continue
            hierarchy = t[: len(module)] == module or module[: len(t)] == t
            edges[module][t] = hierarchy
    return sorted(modules), edges


def name(module):
    return "::".join(module)


def cycles(nodes, edges):
    """The strongly connected components of more than one node (peer edges
    only), each with its elementary cycles."""
    index, low, stack, on_stack, sccs, counter = {}, {}, [], set(), [], [0]
    peer = {m: sorted(t for t, h in edges[m].items() if not h) for m in nodes}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in peer[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    found = []
    for scc in sorted(sccs):
        members = set(scc)
        cycles_in = []

        # Every elementary cycle of the component, each listed once from its
        # smallest node (the components here are small; stop at 20).
        def walk(path, start):
            for w in peer[path[-1]]:
                if len(cycles_in) >= 20:
                    return
                if w == start:
                    cycles_in.append(path + [start])
                elif w in members and w > start and w not in path:
                    walk(path + [w], start)

        for start in scc:
            walk([start], start)
        found.append((scc, sorted(cycles_in, key=lambda c: (len(c), c))))
    return found


def mermaid(nodes, edges):
    ident = lambda m: "_".join(m)
    lines = ["```mermaid", "graph TD"]
    for m in nodes:
        lines.append(f'    {ident(m)}["{name(m)}"]')
    for m in nodes:
        for t in sorted(edges[m]):
            arrow = "-.->" if edges[m][t] else "-->"
            lines.append(f"    {ident(m)} {arrow} {ident(t)}")
    lines.append("```")
    return "\n".join(lines)


def main(argv):
    nodes, edges = build_graph()
    found = cycles(nodes, edges)
    if "--list" in argv:
        for m in nodes:
            peers = [name(t) for t in sorted(edges[m]) if not edges[m][t]]
            inner = [name(t) for t in sorted(edges[m]) if edges[m][t]]
            line = f"{name(m)}: {', '.join(peers)}"
            if inner:
                line += f"  (parent/child: {', '.join(inner)})"
            print(line)
    else:
        n_edges = sum(1 for m in nodes for h in edges[m].values() if not h)
        print("# Module graph of `crates/runner/src`\n")
        print(f"Regenerate with `{REGENERATE}`.\n")
        print(
            "An arrow A --> B means module A names module B in a `use` or a path "
            "(`crate::B`, `super::B`, or a child `B::` of a directory module), outside "
            "`#[cfg(test)]` code. Dotted arrows join a directory module (its `mod.rs`) "
            "and its own submodules and are not checked for cycles; see the script's "
            f"docstring. {len(nodes)} modules, {n_edges} dependencies between peers, "
            + (f"{len(found)} groups of modules in a cycle.\n" if found else "no cycles.\n")
        )
        print(mermaid(nodes, edges))
    for scc, cycles_in in found:
        print(f"cycle among {', '.join(name(m) for m in scc)}:", file=sys.stderr)
        for cycle in cycles_in:
            print(f"    {' -> '.join(name(m) for m in cycle)}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

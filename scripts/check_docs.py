#!/usr/bin/env python3
"""Exit 0 when the front-door documents agree with the sources they describe.

usage: check_docs.py SOURCE_DIR

- docs/architecture.md: every folder with sources (and every public header, a node of its own)
  is in the layer diagram; no arrow of the diagram runs from a lower layer to a higher one; and
  every `#include "folder/..."` (or `<tevsuite/...>`) of a non-test source names a node that the
  diagram lets it reach: itself, or one its arrows lead to, directly or through others below,
  never one in a higher layer than its own (each message names the file and line).
- README.md: the packages it says scripts/install-deps.sh installs are the ones the script lists.
"""
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}
# Test programs and stand-alone projects beside the layers: their includes are not layer arrows.
BESIDE_LAYERS = {"properties", "fuzz", "examples"}
PUBLIC_HEADERS = "include/tevsuite"
# A public header is a node of its own (`<tevsuite/check.hpp>`): the vocabulary at the bottom and
# the calls the public library defines share one folder but not one layer. The diagram may name
# several at once: `<tevsuite/{check.hpp,check.h}>`.
PUBLIC_NODE = re.compile(r"<tevsuite/(?:\{([^}]*)\}|([^>]+))>")


def public_nodes(text: str) -> list[str]:
    """The public-header nodes a piece of the diagram names, braces expanded."""
    names = []
    for group, single in PUBLIC_NODE.findall(text):
        names += [n.strip() for n in group.split(",")] if group else [single]
    return [f"<tevsuite/{n}>" for n in names]


def diagram(architecture: str) -> tuple[dict[str, set[str]], dict[str, int]]:
    """Node -> the nodes its diagram line points to (names inside parentheses included), and
    node -> its layer (`layer N` starts a layer, continued by the lines under it; `beside` none)."""
    block = re.search(r"## Layers.*?```\n(.*?)```", architecture, re.S)
    if not block:
        sys.exit("check_docs: docs/architecture.md has no layer diagram under '## Layers'")
    arrows: dict[str, set[str]] = {}
    layers: dict[str, int] = {}
    layer = None
    for line in block.group(1).splitlines():
        start = re.match(r"(layer (\d+)|beside)\s", line)
        if start:
            layer = int(start.group(2)) if start.group(2) else None
        if "->" not in line:
            continue
        left, right = line.split("->", 1)
        nodes = public_nodes(left)
        if not nodes:
            folder = re.search(r"(?:^|\s)((?:[a-z0-9_]+/)+)\s", left)
            nodes = [folder.group(1).rstrip("/")] if folder else []
        targets = set(public_nodes(right))
        targets |= set(re.findall(r"[a-z0-9_]+(?:/[a-z0-9_]+)?", PUBLIC_NODE.sub("", right)))
        for node in nodes:
            arrows[node] = targets
            if layer is not None:
                layers[node] = layer
    return arrows, layers


def reachable(arrows: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in arrows.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def upward_arrows(arrows: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """The diagram's own arrows from a lower layer to a higher one."""
    return [f"docs/architecture.md: the arrow {node} -> {target} runs up, "
            f"from layer {layers[node]} to layer {layers[target]}"
            for node in sorted(arrows) if node in layers
            for target in sorted(arrows[node]) if layers.get(target, -1) > layers[node]]


def node_of(rel: pathlib.PurePosixPath) -> str:
    if rel.as_posix().startswith(PUBLIC_HEADERS + "/"):
        return f"<tevsuite/{rel.relative_to(PUBLIC_HEADERS).as_posix()}>"
    return rel.parts[0]


def check_architecture(root: pathlib.Path) -> list[str]:
    arrows, layers = diagram((root / "docs/architecture.md").read_text())
    problems = upward_arrows(arrows, layers)
    nodes_with_sources = set()
    for path in sorted(root.rglob("*")):
        rel = pathlib.PurePosixPath(path.relative_to(root).as_posix())
        if path.suffix not in SOURCE_SUFFIXES or rel.parts[0].startswith(("build", ".")):
            continue
        node = node_of(rel)
        if node in BESIDE_LAYERS or "tests" in rel.parts or len(rel.parts) == 1:
            continue
        nodes_with_sources.add(node)
        allowed = reachable(arrows, node)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*(?:"([a-z0-9_]+)/|(<tevsuite/[^>]+>))', line)
            if not m:
                continue
            target = m.group(1) or m.group(2)
            if m.group(1) and not (root / target).is_dir():
                continue  # a header beside the file, or a generated one
            where = f"{rel}:{number}"
            if node in layers and layers.get(target, -1) > layers[node]:
                problems.append(f"{where}: includes {target} (layer {layers[target]}) from "
                                f"{node} (layer {layers[node]}): an arrow that runs up")
            elif target not in allowed:
                problems.append(f"{where}: includes {target}, which the layer diagram does not "
                                f"let {node} reach")
    for node in sorted(nodes_with_sources - set(arrows)):
        problems.append(f"docs/architecture.md: {node} has sources but no line in the layer diagram")
    return problems


def check_readme_packages(root: pathlib.Path) -> list[str]:
    script = (root / "scripts/install-deps.sh").read_text()
    listed = set(re.search(r"packages=\((.*?)\)", script, re.S).group(1).split())
    readme = (root / "README.md").read_text()
    section = re.search(r"installs only the\s+missing ones of these(.*?)CUDA is detected", readme, re.S)
    if not section:
        return ["README.md: no package table after 'installs only the missing ones of these'"]
    documented = set()
    for row in re.findall(r"^\|.*\|[ \t]*$", section.group(1), re.M):
        for cell in re.findall(r"`([^`]+)`", row.rstrip(" |").rsplit("|", 1)[-1]):
            documented |= set(cell.split())
    problems = [f"README.md: does not list {p}, which scripts/install-deps.sh installs"
                for p in sorted(listed - documented)]
    problems += [f"README.md: lists {p}, which scripts/install-deps.sh does not install"
                 for p in sorted(documented - listed)]
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])
    problems = check_architecture(root) + check_readme_packages(root)
    for p in problems:
        print(p)
    if not problems:
        print("check_docs: the layer diagram allows every include, none upward; README lists install-deps.sh's packages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

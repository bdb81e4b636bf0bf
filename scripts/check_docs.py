#!/usr/bin/env python3
"""Exit 0 when the front-door documents agree with the sources they describe.

usage: check_docs.py SOURCE_DIR

- docs/architecture.md: every folder with sources is in the layer diagram, and every
  `#include "folder/..."` (or `<tevsuite/...>`) of a non-test source names a folder that the
  diagram lets it reach: itself, or one its arrows lead to, directly or through others below.
- README.md: the packages it says scripts/install-deps.sh installs are the ones the script lists.
"""
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}
# Test programs and stand-alone projects beside the layers: their includes are not layer arrows.
BESIDE_LAYERS = {"properties", "fuzz", "examples"}
PUBLIC_HEADERS = "include/tevsuite"


def diagram_arrows(architecture: str) -> dict[str, set[str]]:
    """Folder -> the folders its diagram line points to (names inside parentheses included)."""
    block = re.search(r"## Layers.*?```\n(.*?)```", architecture, re.S)
    if not block:
        sys.exit("check_docs: docs/architecture.md has no layer diagram under '## Layers'")
    lines = [line for line in block.group(1).splitlines() if "->" in line]
    arrows: dict[str, set[str]] = {}
    for line in lines:
        left, right = line.split("->", 1)
        folder = re.search(r"(?:^|\s)((?:[a-z0-9_]+/)+)\s", left)
        if folder:
            arrows[folder.group(1).rstrip("/")] = set(re.findall(r"[a-z0-9_]+(?:/[a-z0-9_]+)?", right))
    return arrows


def reachable(arrows: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in arrows.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def check_architecture(root: pathlib.Path) -> list[str]:
    arrows = diagram_arrows((root / "docs/architecture.md").read_text())
    problems = []
    folders_with_sources = set()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.suffix not in SOURCE_SUFFIXES or rel.parts[0].startswith(("build", ".")):
            continue
        folder = PUBLIC_HEADERS if rel.as_posix().startswith(PUBLIC_HEADERS + "/") else rel.parts[0]
        if folder in BESIDE_LAYERS or "tests" in rel.parts or len(rel.parts) == 1:
            continue
        folders_with_sources.add(folder)
        allowed = reachable(arrows, folder)
        for line in path.read_text(errors="replace").splitlines():
            m = re.match(r'\s*#\s*include\s*(?:"([a-z0-9_]+)/|<(tevsuite)/)', line)
            if not m:
                continue
            target = m.group(1) or PUBLIC_HEADERS
            if m.group(1) and not (root / target).is_dir():
                continue  # a header beside the file, or a generated one
            if target not in allowed:
                problems.append(f"{rel}: includes {target}/, which the layer diagram does not let {folder}/ reach")
    for folder in sorted(folders_with_sources - set(arrows)):
        problems.append(f"docs/architecture.md: {folder}/ has sources but no line in the layer diagram")
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
        print("check_docs: the layer diagram allows every include; README lists install-deps.sh's packages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

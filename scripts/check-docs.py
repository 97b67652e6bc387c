#!/usr/bin/env python3
"""Checks that the documentation says only true things about the repository:

- every relative Markdown link of a tracked .md file names a file that exists, and its
  #fragment a heading of that file (GitHub's anchors);
- every path in backticks that starts at a top-level folder of the repository (`deploy/check`,
  `Tests/EndToEndTests/ExternalTool.swift`) exists; placeholders (NAME, <N>, *, ...) are skipped;
- README.md and ARCHITECTURE.md stay within 12,000 bytes (a newcomer reads them first);
- ARCHITECTURE.md's module graph (one line a module, "▶" and what it may import) lists every
  stage module of Package.swift with exactly the stage modules its target depends on, and
  `CatalogMirror` re-exports each (`Exports.swift`) but the few with nothing for a user.

Run by .ci/run; prints one line per problem and exits 1 if there is any.
Usage: scripts/check-docs.py
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMITS = {"README.md": 12000, "ARCHITECTURE.md": 12000}
TOP = ("Sources/", "Tests/", "Plugins/", "Benchmarks/", "Fuzz/", "deploy/", "docs/", "scripts/",
       "site-template/", ".ci/")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.|…|\bNAME\b|\bN\b|\bDIR\b|\bFILE\b|\bTARGET\b|\bSECONDS\b")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fenced = not fenced
                elif not fenced and re.match(r"#{1,6} ", line):
                    base = slug(line.lstrip("#"))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def package_graph():
    """Each `Mirror*` target of Package.swift and the `Mirror*` targets it depends on."""
    with open("Package.swift", encoding="utf-8") as f:
        text = f.read()

    def balanced(source, at, opening, closing):
        """What lies between the bracket at `at` and the one that closes it."""
        depth = 0
        for index in range(at, len(source)):
            depth += {opening: 1, closing: -1}.get(source[index], 0)
            if depth == 0:
                return source[at + 1:index]
        return source[at + 1:]

    graph = {}
    for match in re.finditer(r"\.target\(", text):
        body = balanced(text, match.end() - 1, "(", ")")
        name = re.match(r'\s*name: "(Mirror\w+)"', body)
        if not name or 'path: "Tests/' in body:
            continue
        listed = body.find("dependencies: [")
        uses = balanced(body, listed + len("dependencies: "), "[", "]") if listed >= 0 else ""
        graph[name.group(1)] = set(re.findall(r'"(Mirror\w+)"', uses))
    return graph


def architecture_graph():
    """The module graph ARCHITECTURE.md draws: `MirrorX  what it owns  ▶ A, B, C`."""
    graph, current = {}, None
    with open("ARCHITECTURE.md", encoding="utf-8") as f:
        for line in f:
            named = re.match(r"(Mirror\w+) ", line)
            if named:
                current = named.group(1)
                graph[current] = set()
                if "▶" in line:
                    uses = re.sub(r"\(.*?\)", "", line.split("▶", 1)[1])
                    graph[current] = {"Mirror" + word.strip() for word in uses.split(",") if word.strip()}
    return graph


# Modules with nothing a library user calls, which `CatalogMirror` does not re-export.
NOT_EXPORTED = {"MirrorBlocking"}


def graph_problems():
    built, drawn = package_graph(), architecture_graph()
    problems = []
    with open("Sources/CatalogMirror/Exports.swift", encoding="utf-8") as f:
        exported = set(re.findall(r"^@_exported import (Mirror\w+)$", f.read(), flags=re.M))
    for name in sorted(set(built) - exported - NOT_EXPORTED):
        problems.append(f"Sources/CatalogMirror/Exports.swift: the stage module {name} is not re-exported")
    for name in sorted(set(built) | set(drawn)):
        if name not in drawn:
            problems.append(f"ARCHITECTURE.md: module {name} of Package.swift is not in the graph")
        elif name not in built:
            problems.append(f"ARCHITECTURE.md: module {name} is not a target of Package.swift")
        elif built[name] != drawn[name]:
            problems.append(f"ARCHITECTURE.md: {name} ▶ {', '.join(sorted(drawn[name])) or 'nothing'}, but "
                            f"Package.swift: {', '.join(sorted(built[name])) or 'nothing'}")
    return problems


def main():
    os.chdir(ROOT)
    files = subprocess.run(["git", "ls-files", "*.md"], check=True, capture_output=True,
                           text=True).stdout.split()
    problems = graph_problems()
    for name, limit in LIMITS.items():
        size = os.path.getsize(name)
        if size > limit:
            problems.append(f"{name}: {size} bytes, more than {limit}")
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = f.read()
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        for target in LINK.findall(prose):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if not os.path.exists(resolved):
                problems.append(f"{md}: link to {target}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append(f"{md}: link to {target}: no such heading in {resolved}")
        for code in CODE.findall(prose):
            token = code.split()[0] if code.split() else ""
            if not token.startswith(TOP) or PLACEHOLDER.search(token):
                continue
            token = token.rstrip(".,;:)")
            if not os.path.exists(token):
                problems.append(f"{md}: `{token}` does not exist")
    for line in problems:
        print(f"check-docs: {line}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-docs: {len(files)} Markdown files: every link, path and size limit holds; "
          f"the module graph is Package.swift's")
    return 0


if __name__ == "__main__":
    sys.exit(main())

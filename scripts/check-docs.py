#!/usr/bin/env python3
"""Checks that the documentation says only true things about the repository:

- every relative Markdown link of a tracked .md file names a file that exists, and its
  #fragment a heading of that file (GitHub's anchors);
- every path in backticks that starts at a top-level folder of the repository (`deploy/check`,
  `Tests/EndToEndTests/ExternalTool.swift`) exists; placeholders (NAME, <N>, *, ...) are skipped;
- README.md and ARCHITECTURE.md stay within 12,000 bytes (a newcomer reads them first);
- ARCHITECTURE.md's module graph (one line a module, "▶" and what it may import) lists every
  stage module of Package.swift with exactly the stage modules its target depends on, and
  `CatalogMirror` re-exports each (`Exports.swift`) but the few with nothing for a user;
- every Swift library module under Sources/ (C shims, SampleGallery and the executables aside)
  has a test target `<Module>Tests`, which depends on no module above its own: on its module,
  those below it (Package.swift's graph), SampleGallery and MirrorTestSupport; and no test file
  of a `Mirror*Tests` target imports a module above its own.

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


def test_targets():
    """Each `.testTarget` of Package.swift and the modules of this package it depends on."""
    with open("Package.swift", encoding="utf-8") as f:
        text = f.read()
    targets = {}
    for match in re.finditer(r'\.testTarget\(\s*name: "(\w+)"', text):
        end = text.find(".testTarget(", match.end())
        body = text[match.end():end if end >= 0 else len(text)]
        listed = re.search(r"dependencies: \[(.*?)\](?=\s*[,)])", body, flags=re.S)
        uses = re.sub(r"\.product\([^)]*\)", "", listed.group(1)) if listed else ""
        targets[match.group(1)] = set(re.findall(r'"(\w+)"', uses))
    return targets


# What any test target may use besides its module and those below: fixtures and shared helpers.
TEST_HELPERS = {"SampleGallery", "MirrorTestSupport"}


def test_target_problems(built):
    """Every Swift library module has `<Module>Tests`, built on no module above its own."""
    problems, tests = [], test_targets()

    def below(name, seen=None):
        seen = set() if seen is None else seen
        for used in built.get(name, ()):
            if used not in seen:
                seen.add(used)
                below(used, seen)
        return seen

    libraries = [name for name in sorted(os.listdir("Sources"))
                 if name in built or name == "CatalogMirror"]
    for name in libraries:
        if f"{name}Tests" not in tests:
            problems.append(f"Package.swift: the module {name} has no test target {name}Tests")
    for target, uses in sorted(tests.items()):
        module = target[:-len("Tests")]
        if module not in built:
            continue
        allowed = {module} | below(module) | TEST_HELPERS
        for extra in sorted(uses - allowed):
            problems.append(f"Package.swift: {target} depends on {extra}, which is not below {module}")
        folder = os.path.join("Tests", target)
        for root, _, files in os.walk(folder):
            for file in sorted(f for f in files if f.endswith(".swift")):
                path = os.path.join(root, file)
                with open(path, encoding="utf-8") as f:
                    imported = re.findall(r"^(?:@testable )?import (\w+)", f.read(), flags=re.M)
                for extra in sorted(set(imported) & (set(built) | {"CatalogMirror"}) - allowed):
                    problems.append(f"{path}: imports {extra}, which is not below {module}")
    return problems


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
    problems += test_target_problems(built)
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
          f"the module graph is Package.swift's; every module has its own test target")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Every README under model/ says where its tests and its RTL twin are.

usage: check_block_readmes.py SOURCE_DIR

Each model/**/README.md must end in a "## Tests and RTL twin" section with a
"Tests:" line naming at least one testbench/ path and a "RTL twin:" line
naming "none" or rtl/ folders; every testbench/ and rtl/ path it names must
exist. Exits 1 listing every problem.
"""
import re
import sys
from pathlib import Path

PATH = re.compile(r"(?<![\w/])((?:testbench|rtl)/[\w./*-]*[\w*])")


def check(readme, root, problems):
    text = readme.read_text()
    name = readme.relative_to(root)
    if "\n## Tests and RTL twin\n" not in text:
        problems.append(f"{name}: no '## Tests and RTL twin' section")
        return
    section = text.split("\n## Tests and RTL twin\n", 1)[1]
    tests = re.search(r"^Tests: (.+?)(?=\n\n|\Z)", section, re.M | re.S)
    twin = re.search(r"^RTL twin: (.+?)(?=\n\n|\Z)", section, re.M | re.S)
    if not tests or not any(p.startswith("testbench/") for p in PATH.findall(tests.group(1))):
        problems.append(f"{name}: its Tests line names no testbench/ path")
    if not twin or ("none" not in twin.group(1) and not PATH.findall(twin.group(1))):
        problems.append(f"{name}: its RTL twin line names neither none nor an rtl/ folder")
    for path in PATH.findall(section):
        matches = list(root.glob(path)) if "*" in path else [root / path]
        if not matches or not all(m.exists() for m in matches):
            problems.append(f"{name}: names {path}, which does not exist")


def main():
    root = Path(sys.argv[1])
    problems = []
    readmes = sorted((root / "model").rglob("README.md"))
    for readme in readmes:
        check(readme, root, problems)
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)
    print(f"{len(readmes)} block READMEs name their tests and RTL twin")


if __name__ == "__main__":
    main()

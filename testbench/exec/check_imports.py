#!/usr/bin/env python3
"""Every symbol Debian's perftest imports from the libraries rnicsim exec replaces is
defined by ours, under the same version.

usage: check_imports.py APP_LIBRARY_DIR PROGRAM...

For each PROGRAM, `objdump -T` lists its undefined dynamic symbols; those versioned
for libibverbs (IBVERBS_*), librdmacm (RDMACM_*), libmlx5 (MLX5_*) or libefa (EFA_*)
must each be a defined symbol of the same name and version in APP_LIBRARY_DIR's
libibverbs.so.1, librdmacm.so.1, libmlx5.so.1 or libefa.so.1. (libpci, libibumad and
libc stay Debian's.) Exits 77 (skipped) when no PROGRAM is installed.
"""
import os
import re
import shutil
import subprocess
import sys

OURS = {"IBVERBS": "libibverbs.so.1", "RDMACM": "librdmacm.so.1", "MLX5": "libmlx5.so.1",
        "EFA": "libefa.so.1"}
SKIP = 77


def dynamic_symbols(path):
    """(defined, undefined): sets of (name, version) from objdump -T."""
    out = subprocess.run(["objdump", "-T", path], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        m = re.search(r"\s(\*UND\*|\.\S+)\s+[0-9a-f]+\s+(?:\((\S+)\)|(\S+))\s+(\S+)$", line)
        if not m:
            continue
        section, version, name = m.group(1), m.group(2) or m.group(3), m.group(4)
        (undefined if section == "*UND*" else defined).add((name, version))
    return defined, undefined


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    library_dir, programs = sys.argv[1], sys.argv[2:]
    found = [shutil.which(p) for p in programs if shutil.which(p)]
    if not found:
        print("SKIP: none of", " ".join(programs), "is installed (Debian's perftest)")
        sys.exit(SKIP)
    exported = {}
    for prefix, library in OURS.items():
        exported[prefix] = dynamic_symbols(os.path.join(library_dir, library))[0]
    problems, checked = [], 0
    for program in found:
        for name, version in sorted(dynamic_symbols(program)[1]):
            prefix = (version or "").split("_")[0]
            if prefix not in OURS:
                continue
            checked += 1
            if (name, version) not in exported[prefix]:
                problems.append(f"{os.path.basename(program)} imports {name}@{version}: "
                                f"{OURS[prefix]} does not define it")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"{len(found)} programs: all {checked} imports from libibverbs, librdmacm, libmlx5 and "
          f"libefa defined by ours under Debian's versions")


if __name__ == "__main__":
    main()

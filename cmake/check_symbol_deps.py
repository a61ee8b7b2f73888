#!/usr/bin/env python3
"""Folder dependencies by symbol (issue 28), run by ctest as `folder_symbol_dependencies` after
the build. CheckFolderDeps.cmake reads #include lines; it cannot see a folder that uses another
folder's function through a third folder's header (A includes B's header, which includes C's,
and A calls C). This reads the built libraries instead: every symbol a folder's library needs
from outside itself (nm --undefined-only) is looked up among the symbols the other folders'
libraries define (strong definitions only); a symbol defined by a folder the table's row does
not allow fails, naming the user, the object, the symbol and the folder that defines it.

Not seen (say so, do not pretend): uses that leave no undefined symbol, i.e. inline functions
and templates compiled into the user itself, and types used only by value.

Usage: check_symbol_deps.py --table docs/architecture.md (--build-dir DIR | NAME=LIB ...)
  --build-dir: every row's library column found in the build tree (lib<target>.a; for
  "<target> (executable)" the target's object files). NAME=LIB: a static library or a
  ':'-joined list of object files.
Exit 0 when every cross-folder symbol is allowed, 1 with one line per violation otherwise,
2 on bad arguments (a name not in the table, a missing file, nm failing).
"""
import argparse
import re
import subprocess
import sys

BEGIN, END = "<!-- folder-deps: begin", "<!-- folder-deps: end"
STRONG = set("TDBRG")  # defined, global, not weak/common-unique


def read_table(path, libraries=None):
    """name -> set of allowed names, from the | name | folder | library | may include | rows;
    `libraries`, when given, gets name -> the library column."""
    text = open(path, encoding="utf-8").read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"{path}: no folder-deps table")
    allowed = {}
    for row in text[start:end].splitlines():
        cells = [c.strip().strip("`").strip() for c in row.split("|")[1:-1]]
        if len(cells) != 4 or cells[0] in ("name", "") or set(cells[0]) == {"-"}:
            continue
        may = cells[3]
        if libraries is not None:
            libraries[cells[0]] = cells[2]
        allowed[cells[0]] = set() if may in ("-", "—") else {
            m.strip() for m in may.split(",") if m.strip()}
    return allowed


def find_built(build_dir, library):
    """The files of one library column in a build tree: [lib.a] or an executable's objects."""
    import os
    exe = library.endswith("(executable)")
    target = library.replace("(executable)", "").strip()
    want = f"{target}.dir" if exe else f"lib{target}.a"
    found = []
    for root, dirs, files in os.walk(build_dir):
        if exe and os.path.basename(root) == want:
            for r2, _, f2 in os.walk(root):
                found += [os.path.join(r2, f) for f in f2 if f.endswith(".o")]
            dirs[:] = []
        elif not exe and want in files:
            found.append(os.path.join(root, want))
    return sorted(found)


def nm(files, undefined):
    """[(member, symbol, type)] of the files; member names the object inside an archive."""
    argv = ["nm", "-P", "-A"] + (["--undefined-only"] if undefined else ["--defined-only", "-g"])
    out = subprocess.run(argv + files, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(2)
    rows = []
    for line in out.stdout.splitlines():
        # "lib.a[obj.o]: symbol T 0 10" or "obj.o: symbol U"
        m = re.match(r"^(.*?): (\S+) (\S)", line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3)))
    return rows


def demangle(symbols):
    if not symbols:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True)
    names = out.stdout.splitlines()
    return dict(zip(symbols, names)) if len(names) == len(symbols) else {s: s for s in symbols}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--build-dir")
    ap.add_argument("libs", nargs="*", metavar="NAME=LIB")
    args = ap.parse_args()
    columns = {}
    allowed = read_table(args.table, columns)
    libs = {}
    if args.build_dir:
        for name, library in columns.items():
            files = find_built(args.build_dir, library)
            if not files:
                print(f"check_symbol_deps: {name}: {library} not found under {args.build_dir} "
                      "(build first)", file=sys.stderr)
                return 2
            libs[name] = files
    for spec in args.libs:
        name, _, files = spec.partition("=")
        if name not in allowed or not files:
            print(f"check_symbol_deps: '{spec}': NAME=LIB with NAME a row of {args.table}",
                  file=sys.stderr)
            return 2
        libs[name] = [f for f in files.split(":") if f]

    definer = {}
    for name, files in libs.items():
        for _, sym, kind in nm(files, undefined=False):
            if kind in STRONG:
                definer.setdefault(sym, name)
    problems = []
    edges = 0
    for name, files in libs.items():
        for member, sym, _ in nm(files, undefined=True):
            owner = definer.get(sym)
            if owner is None or owner == name:
                continue
            edges += 1
            if owner not in allowed[name]:
                problems.append((name, member, sym, owner))
    names = demangle(sorted({p[2] for p in problems}))
    seen = set()
    for name, member, sym, owner in sorted(problems):
        if (name, member, sym) in seen:
            continue
        seen.add((name, member, sym))
        may = ", ".join(sorted(allowed[name])) or "nothing"
        print(f"  {name} ({member}) uses {owner}'s {names.get(sym, sym)}: not allowed "
              f"({name} may include: {may})")
    if problems:
        print(f"folder symbol dependencies: {len(seen)} use(s) of a folder the table in "
              f"{args.table} does not allow (listed above)")
        return 1
    print(f"folder symbol dependencies: {len(libs)} libraries, {edges} cross-folder symbol "
          f"references, all allowed by {args.table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

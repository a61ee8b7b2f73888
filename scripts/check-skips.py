#!/usr/bin/env python3
"""Skip accounting of one scripts/test.sh stage (issue 33).

Reads ctest's JUnit output (ctest --output-junit FILE) and the committed list of expected skips
(tests/expected-skips.txt), prints the stage's skip count and every skipped test with its reason,
and with --strict (scripts/test.sh passes it when CI=true) exits 1 when
  - a test skipped that the list does not name (a capability went untested), or
  - a listed test skipped although its condition does not hold on this machine, or
  - a listed test whose condition holds ran instead of skipping (the list no longer matches).
Usage: check-skips.py --stage NAME --junit FILE [--list FILE] [--sanitized] [--strict]
Exit: 0 accounted, 1 not accounted (strict), 2 unusable input (missing or malformed files).
"""
import argparse
import fnmatch
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

MAX_FILE_BYTES = 64 << 20  # a JUnit file of the whole suite is ~2 MiB; refuse anything absurd
MAX_REASON_CHARS = 200


def fail_input(msg):
    print(f"check-skips: {msg}", file=sys.stderr)
    sys.exit(2)


def meminfo_kib(field):
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def probe_dir():
    # Where the tests' temporary folders live (tests/support/temp_dir.hpp): the probes must
    # ask the same file system.
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def quiet(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=30, check=False).returncode == 0


def no_chattr_immutable():
    with tempfile.NamedTemporaryFile(dir=probe_dir()) as f:
        if not quiet(["chattr", "+i", f.name]):
            return True
        quiet(["chattr", "-i", f.name])
        return False


def no_tmpfs_mount():
    with tempfile.TemporaryDirectory(dir=probe_dir()) as d:
        if not quiet(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", d]):
            return True
        quiet(["umount", d])
        return False


# Each condition says whether "the test may skip here" holds on this machine / in this stage.
CONDITIONS = {
    "always": lambda a: True,
    "no-kvm": lambda a: not os.path.exists("/dev/kvm"),
    "mem-available-ge-64g": lambda a: meminfo_kib("MemAvailable") >= (64 << 20),
    "hugepages-configured": lambda a: meminfo_kib("HugePages_Total") > 0,
    "sanitized-build": lambda a: a.sanitized,
    "no-chattr-immutable": lambda a: no_chattr_immutable(),
    "no-tmpfs-mount": lambda a: no_tmpfs_mount(),
}


def read_list(path):
    entries = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read(MAX_FILE_BYTES).splitlines()
    except OSError as e:
        fail_input(f"{path}: {e.strerror}")
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [x.strip() for x in line.split(" | ")]
        if len(fields) != 3 or not all(fields):
            fail_input(f"{path}:{n}: expected 'TEST | CONDITION | WHY', got: {line[:120]}")
        if fields[1] not in CONDITIONS:
            fail_input(f"{path}:{n}: unknown condition '{fields[1]}' (known: "
                       f"{', '.join(sorted(CONDITIONS))})")
        entries.append({"test": fields[0], "condition": fields[1], "line": n})
    return entries


def skip_reason(case):
    # gtest prints "file:line: Skipped" then the message; keep the first message line.
    out = (case.findtext("system-out") or "").splitlines()
    for i, line in enumerate(out):
        if line.endswith(": Skipped") and i + 1 < len(out) and out[i + 1].strip():
            return out[i + 1].strip()[:MAX_REASON_CHARS]
    return "(no reason printed)"


def read_junit(path):
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            fail_input(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        root = ET.parse(path).getroot()
    except OSError as e:
        fail_input(f"{path}: {e.strerror} (did ctest run with --output-junit?)")
    except ET.ParseError as e:
        fail_input(f"{path}: not JUnit XML: {e}")
    ran, skipped = [], {}
    for case in root.iter("testcase"):
        name = case.get("name", "")
        if case.find("skipped") is not None:
            skipped[name] = skip_reason(case)
        elif case.get("status") in ("run", "fail"):
            ran.append(name)
    return ran, skipped


def entry_for(entries, name):
    return next((e for e in entries if fnmatch.fnmatchcase(name, e["test"])), None)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", required=True)
    p.add_argument("--junit", required=True)
    p.add_argument("--list", default=os.path.join(os.path.dirname(__file__), "..", "tests",
                                                  "expected-skips.txt"))
    p.add_argument("--sanitized", action="store_true", help="the stage's tree is sanitized")
    p.add_argument("--strict", action="store_true", help="fail on any unaccounted skip (CI)")
    a = p.parse_args()
    entries = read_list(a.list)
    ran, skipped = read_junit(a.junit)
    holds = {}  # condition -> bool, each probed once

    def condition_holds(e):
        if e["condition"] not in holds:
            holds[e["condition"]] = CONDITIONS[e["condition"]](a)
        return holds[e["condition"]]

    problems = []
    print(f"skips in stage '{a.stage}': {len(skipped)} of {len(ran) + len(skipped)} tests")
    for name, reason in sorted(skipped.items()):
        e = entry_for(entries, name)
        if e is None:
            verdict = "NOT LISTED"
            problems.append(f"{name} skipped and is not in {a.list}: {reason}")
        elif not condition_holds(e):
            verdict = f"LISTED ({e['condition']}) BUT THE CONDITION DOES NOT HOLD"
            problems.append(f"{name} skipped, but its condition '{e['condition']}' (line "
                            f"{e['line']}) does not hold here: {reason}")
        else:
            verdict = f"expected: {e['condition']}"
        print(f"  skipped {name} [{verdict}]: {reason}")
    for name in ran:
        e = entry_for(entries, name)
        if e is not None and condition_holds(e):
            problems.append(f"{name} ran, but {a.list}:{e['line']} says it skips here "
                            f"('{e['condition']}' holds): the list no longer matches the run")
    for msg in problems:
        print(f"check-skips: {a.stage}: {msg}", file=sys.stderr)
    if problems and a.strict:
        print(f"check-skips: stage '{a.stage}': {len(problems)} unaccounted skip(s); CI requires "
              "every skip listed with a condition that holds", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

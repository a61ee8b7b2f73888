#!/usr/bin/env python3
"""Resolve a hung boot's vcpus.log against the guest kernel's System.map (issue 17).

The boot watchdog keeps every vCPU's registers of a hung guest (vcpus.attempt-N.log), plus the
16 code bytes at RIP and 32 stack words of the first vCPU of each place. The built-in guest
boots its vmlinux through PVH, which skips KASLR, so RIPs and return addresses are link
addresses: this prints each vCPU's RIP as symbol+offset, the code bytes (and whether the vCPU is
at an int3, 0xcc), and the kernel-text words of each stack as the likely caller chain.

Usage: bench/boot/resolve_vcpus.py --system-map System.map-6.1.0-57-amd64 vcpus.attempt-1.log...
Debian's /boot/System.map is a stub; the real one is in the kernel's -dbg package
(linux-image-<version>-dbg: /usr/lib/debug/boot/System.map-<version>).
"""
import argparse
import bisect
import re
import sys

MAX_MAP = 64 << 20  # a distribution System.map is ~5 MB
MAX_LOG = 8 << 20  # vcpus.log: ~1.5 KiB per vCPU plus ~3 KiB per place
SYMBOL = re.compile(r"^([0-9a-fA-F]{16}) ([tTwW]) ([A-Za-z0-9_.$]{1,200})$")
CPU = re.compile(r"^CPU#(\d{1,4})$")
REGS = re.compile(r"^RIP=([0-9a-f]{16}) .*CPL=(\d).*HLT=(\d)")
SECTION = re.compile(r"^== CPU#(\d{1,4}) (x/16bx \$pc|x/32gx \$esp)$")
WORD = re.compile(r"0x([0-9a-f]{16})")
BYTE = re.compile(r"0x([0-9a-f]{2})\b")


def read_bounded(path, limit):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(limit + 1)
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    if len(text) > limit:
        sys.exit(f"{path}: larger than {limit} bytes, not a System.map / vcpus.log")
    return text


class Symbols:
    """Text symbols of a System.map, looked up by address."""

    def __init__(self, path):
        rows = []
        for n, line in enumerate(read_bounded(path, MAX_MAP).splitlines(), 1):
            m = SYMBOL.match(line.strip())
            if m:
                rows.append((int(m.group(1), 16), m.group(3)))
        if not rows:
            sys.exit(f"{path}: no text symbols (want lines 'ADDRESS t|T NAME')")
        rows.sort()
        self.addrs = [a for a, _ in rows]
        self.names = [n for _, n in rows]
        text = dict((n, a) for a, n in rows)
        self.start = text.get("_stext", self.addrs[0])
        self.end = text.get("_etext", self.addrs[-1])

    def in_text(self, addr):
        return self.start <= addr < self.end

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or not self.in_text(addr):
            return "?"
        return f"{self.names[i]}+{addr - self.addrs[i]:#x}"


def resolve(path, syms):
    cpus, sections, current, section = {}, {}, None, None
    for line in read_bounded(path, MAX_LOG).splitlines():
        line = line.rstrip("\r")
        if m := CPU.match(line):
            current, section = int(m.group(1)), None
        elif (m := REGS.match(line)) and current is not None and section is None:
            cpus[current] = (int(m.group(1), 16), m.group(2), m.group(3))
        elif m := SECTION.match(line):
            section = (int(m.group(1)), m.group(2))
            sections[section] = []
        elif section is not None:
            sections[section].append(line)
    print(f"{path}: {len(cpus)} vCPUs")
    places = {}
    for cpu, (rip, cpl, hlt) in sorted(cpus.items()):
        places.setdefault((rip, cpl), []).append((cpu, hlt))
    for (rip, cpl), members in places.items():
        halted = sum(1 for _, h in members if h == "1")
        ids = ",".join(f"#{c}" for c, _ in members)
        print(f"  {rip:016x} {syms.name(rip)} CPL={cpl}: {len(members)} vCPU(s) ({ids}; "
              f"{halted} halted)")
    for (cpu, what), lines in sections.items():
        text = " ".join(lines)
        if what.startswith("x/16bx"):
            # The vCPU ran on between the register read and this one: name the address read.
            at = re.match(r"^([0-9a-f]{16}):", lines[0]) if lines else None
            where = f"{at.group(1)} {syms.name(int(at.group(1), 16))}" if at else "RIP"
            code = BYTE.findall(text)
            note = "  <- int3 (0xcc) in memory" if code[:1] == ["cc"] else (
                "  (not an int3 in memory)" if code else "")
            print(f"  CPU#{cpu} code at {where}: {' '.join(code)}{note}")
        else:
            chain = [int(w, 16) for w in WORD.findall(text)]
            chain = [f"{a:016x} {syms.name(a)}" for a in chain if syms.in_text(a)]
            print(f"  CPU#{cpu} kernel-text words on the stack (newest first):")
            for entry in chain:
                print(f"    {entry}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--system-map", required=True, help="the guest kernel's System.map")
    p.add_argument("logs", nargs="+", help="vcpus.log / vcpus.attempt-N.log files")
    a = p.parse_args()
    syms = Symbols(a.system_map)
    for log in a.logs:
        resolve(log, syms)


if __name__ == "__main__":
    main()

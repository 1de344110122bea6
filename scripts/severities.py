#!/usr/bin/env python3
"""scripts/severities.py: every place a finding code is given a severity
by hand (a call site that names model.Sev* next to a code constant), checked
against the severities the code's check allows in the registry (`kmeta codes
-o json`). Call sites that take their check from a table name no severity
and are not listed, nor are lint's rule tables (a Rule is the declaration
of its check, read by the registry); this finds the ones still to convert, and any whose
severity the registry does not allow.

Usage: go build -o /tmp/kmeta ./cmd/kmeta && scripts/severities.py /tmp/kmeta
Exit 1 when a site's severity is not allowed or its code is not registered.
"""
import glob, json, os, re, subprocess, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
reg = {c["code"]: c for c in json.loads(subprocess.check_output([sys.argv[1], "codes", "-o", "json"]))}


def allowed(c):
    return [s for s in (c.get("escalated"), c["severity"], c.get("relaxed")) if s]


consts = {}
for f in glob.glob("**/*.go", recursive=True):
    if f.endswith("_test.go") or "testkit" in f:
        continue
    for m in re.finditer(r'\b((?:Code|Kind|Warn)[A-Za-z0-9]+)\s*=\s*"([^"]+)"', open(f).read()):
        consts[(os.path.dirname(f), m.group(1))] = m.group(2)


def value(d, name):
    if "." in name:
        pkg, n = name.split(".")
        for (dd, nn), v in consts.items():
            if nn == n and os.path.basename(dd) == pkg:
                return v
        return None
    return consts.get((d, name))


code = r"((?:[a-z]+\.)?(?:Code|Kind|Warn)[A-Za-z0-9]+)"
sev = r"model\.(Sev[A-Za-z]+)"
patterns = [
    code + r",\s*" + sev,                         # f(CODE, model.SevX, ...)
    sev + r",\s*" + code,                         # add(model.SevX, CODE, ...)
    r"Code:\s*" + code + r",\s*Severity:\s*" + sev,
    r"f\.Code, f\.Severity = " + code + r", " + sev,
    r"f\.Severity, f\.Code = " + sev + r", " + code,
]
sites = bad = 0
for f in sorted(glob.glob("**/*.go", recursive=True)):
    if f.endswith("_test.go") or "testkit" in f or os.path.basename(f) == "checks.go":
        continue
    d, s = os.path.dirname(f), open(f).read()
    for p in patterns:
        for m in re.finditer(p, s):
            a, b = m.group(1), m.group(2)
            if a.startswith("Sev"):
                a, b = b, a
            v = value(d, a)
            if v is None:
                continue
            line = s[: m.start()].count("\n") + 1
            sites += 1
            severity = b[3:].lower()
            c = reg.get(v)
            if c is None:
                print(f"{f}:{line}: {v} is not in the registry")
                bad += 1
            elif severity not in allowed(c):
                print(f"{f}:{line}: {v} at {severity}; its check allows {allowed(c)}")
                bad += 1
            else:
                print(f"{f}:{line}: {v} {severity} (to convert)")
print(f"{sites} call sites name a severity; {bad} disagree with the registry", file=sys.stderr)
sys.exit(1 if bad else 0)

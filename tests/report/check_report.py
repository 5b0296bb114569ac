#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs report_run with the report, trace and per-DPU CSV requested and
checks what a user would look at in each."""
import csv, json, os, re, subprocess, sys, tempfile

exe, dpu_program = sys.argv[1], sys.argv[2]
out = tempfile.mkdtemp()
env = dict(os.environ, OPENPIM_REPORT=f"{out}/report.txt", OPENPIM_TRACE=f"{out}/trace.json",
           OPENPIM_REPORT_DPUS=f"{out}/dpus.csv")
subprocess.run([exe, dpu_program], env=env, check=True)
failures = []

def check(cond, what):
    if not cond:
        failures.append(what)

report = open(f"{out}/report.txt").read()
calls = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(CPU-DPU|DPU kernel|Inter-DPU|DPU-CPU)\s+(\d+)", report, re.M)}
# before the first launch: CPU-DPU; between the launches: Inter-DPU; after the last: DPU-CPU
check(calls == {"CPU-DPU": 1, "DPU kernel": 2, "Inter-DPU": 2, "DPU-CPU": 1}, f"report categories {calls}")
check("WARNING" not in report, "program built without accounting")
check(re.search(r"peak [0-9.]+ MB", report) is not None, "peak memory line")

trace = json.load(open(f"{out}/trace.json"))
events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
tracks = {(e.get("pid"), e.get("tid")) for e in events}
check(len(events) >= 6, f"{len(events)} trace events")
check(len(tracks) >= 3, f"{len(tracks)} tracks: one per rank expected")
check(all(e["dur"] >= 0 and e["ts"] >= 0 for e in events), "negative times")

rows = list(csv.DictReader(open(f"{out}/dpus.csv")))
check(len(rows) == 2 * 130, f"{len(rows)} CSV rows")
check(len({r["dpu"] for r in rows}) == 130, "DPU ids")
check(all(int(r["cycles"]) > 0 and int(r["instructions"]) > 0 for r in rows), "cycles and instructions")
check(all(0 < float(r["ipc"]) <= 1 for r in rows), "IPC in (0, 1]")

for f in failures:
    print("FAIL:", f)
print(f"check_report: {len(failures)} failed")
sys.exit(1 if failures else 0)

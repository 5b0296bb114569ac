#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The progress line of long launches and transfers (sdk/progress.c).

Runs test_progress_host with stderr on a pseudo-terminal (stdout on a pipe)
and with stderr redirected to a file, and checks: on a terminal, long work
prints lines "openpim: <what> done/total DPUs, s.s s" updated in place with
\\r, done never going back, a final total/total and a newline; redirected,
not one byte of it; OPENPIM_PROGRESS=0/1 force it off/on; stdout is
byte-identical in every case.  OPENPIM_PROGRESS_AFTER_MS=0 makes any launch
longer than the machine's report period (0.1 s) show the line.
"""
import os
import pty  # noqa: F401  (os.openpty is the pseudo-terminal; pty documents the intent)
import re
import select
import subprocess
import sys
import tempfile
import tty

HOST = sys.argv[1]
ITER = "10000000"  # ~1 s of host time for 64 DPUs
LINE = re.compile(rb"openpim: (launch|transfer|launch/transfer) (\d+)/(\d+) DPUs, (\d+\.\d) s *")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def env_with(**kv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENPIM_PROGRESS")}
    env.update(kv)
    return env


def run_tty(args, **env):
    """stderr on a pseudo-terminal in raw mode (no \\n -> \\r\\n), stdout on a pipe."""
    master, slave = os.openpty()
    tty.setraw(slave)
    p = subprocess.Popen([HOST] + args, stdout=subprocess.PIPE, stderr=slave, env=env_with(**env))
    os.close(slave)
    err = b""
    out_chunks = []
    fds = [master, p.stdout.fileno()]
    while fds:
        ready, _, _ = select.select(fds, [], [], 60)
        if not ready:
            break
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                data = b""
            if not data:
                fds.remove(fd)
            elif fd == master:
                err += data
            else:
                out_chunks.append(data)
    rc = p.wait(timeout=60)
    os.close(master)
    return rc, b"".join(out_chunks), err


def run_file(args, **env):
    """stderr redirected to a file."""
    with tempfile.TemporaryFile() as f:
        p = subprocess.run([HOST] + args, stdout=subprocess.PIPE, stderr=f, env=env_with(**env), timeout=120)
        f.seek(0)
        return p.returncode, p.stdout, f.read()


def bursts(err, label):
    """The progress output as bursts (lines up to a newline), each a list of
    (what, done, total, seconds); every line must be whole (no garbling)."""
    out = []
    for chunk in err.split(b"\n"):
        lines = []
        for seg in chunk.split(b"\r"):
            if not seg:
                continue
            m = LINE.fullmatch(seg)
            check(m is not None, f"{label}: not a whole progress line: {seg!r}")
            if m:
                lines.append((m.group(1).decode(), int(m.group(2)), int(m.group(3)), float(m.group(4))))
        if lines:
            out.append(lines)
    check(err == b"" or err.endswith(b"\n"), f"{label}: the last line is not ended by a newline: {err[-60:]!r}")
    for b in out:
        totals = {t for _, _, t, _ in b}
        check(len(totals) == 1, f"{label}: one burst with several totals {totals}")
        dones = [d for _, d, _, _ in b]
        secs = [s for _, _, _, s in b]
        check(dones == sorted(dones), f"{label}: done goes back: {dones}")
        check(secs == sorted(secs), f"{label}: elapsed goes back: {secs}")
        check(all(d <= t for _, d, t, _ in b), f"{label}: done above total")
        check(b[-1][1] == b[-1][2], f"{label}: the final line is not total/total: {b[-1]}")
    return out


def of_kind(bs, what):
    return [b for b in bs if b[-1][0] == what]


baselines = {}
for mode, args in (("sync", ["sync", ITER]), ("async", ["async", ITER]), ("two", ["two", ITER]), ("read", ["read"]),
                   ("write", ["write"])):
    # the reference stdout: no terminal, progress forced off
    rc, base, err = run_file(args, OPENPIM_PROGRESS="0", OPENPIM_PROGRESS_AFTER_MS="0")
    check(rc == 0, f"{mode}: exit {rc} with progress off: {err!r}")
    check(b"0 failed" in base, f"{mode}: the host checks failed: {base!r}")
    check(b"DPUs," not in err and b"\r" not in err, f"{mode}: progress printed while off: {err!r}")
    baselines[mode] = base

    # a terminal: the line shows
    rc, out, err = run_tty(args, OPENPIM_PROGRESS_AFTER_MS="0")
    check(rc == 0, f"{mode} (tty): exit {rc}")
    check(out == base, f"{mode} (tty): stdout differs: {out!r} vs {base!r}")
    bs = bursts(err, f"{mode} (tty)")
    if mode in ("read", "write"):
        xfers = [b for b in of_kind(bs, "transfer") if b[-1][2] == 64]
        check(len(xfers) >= 1, f"{mode} (tty): no progress line for the transfer: {err!r}")
    else:
        launches = of_kind(bs, "launch")
        check(len(launches) == 1, f"{mode} (tty): {len(launches)} launch bursts, expected 1: {err!r}")
        if launches:
            b = launches[0]
            total = 128 if mode == "two" else 64
            check(b[-1][2] == total, f"{mode} (tty): launch total {b[-1][2]}, expected {total}")
            check(len(b) >= 2 and any(0 <= d < t for _, d, t, _ in b),
                  f"{mode} (tty): no line while the launch ran: {b}")
        # the broadcast of the iterations and the read of the results: 64 DPUs each
        xfers = [b for b in of_kind(bs, "transfer") if b[-1][2] == 64]
        check(len(xfers) >= 2, f"{mode} (tty): {len(xfers)} transfer lines of 64 DPUs, expected 2 or more: {err!r}")

    # redirected: not one byte of progress
    rc, out, err = run_file(args, OPENPIM_PROGRESS_AFTER_MS="0")
    check(rc == 0, f"{mode} (file): exit {rc}")
    check(out == base, f"{mode} (file): stdout differs")
    check(b"DPUs," not in err and b"\r" not in err and b"openpim" not in err,
          f"{mode} (file): progress bytes in a redirected stderr: {err!r}")

# forced off on a terminal; forced on in a file (still stderr only)
rc, out, err = run_tty(["sync", ITER], OPENPIM_PROGRESS="0", OPENPIM_PROGRESS_AFTER_MS="0")
check(rc == 0 and out == baselines["sync"], "OPENPIM_PROGRESS=0 (tty): exit or stdout differs")
check(err == b"", f"OPENPIM_PROGRESS=0 (tty): stderr not empty: {err!r}")
rc, out, err = run_file(["async", ITER], OPENPIM_PROGRESS="1", OPENPIM_PROGRESS_AFTER_MS="0")
check(rc == 0 and out == baselines["async"], "OPENPIM_PROGRESS=1 (file): exit or stdout differs")
check(len(of_kind(bursts(err, "OPENPIM_PROGRESS=1 (file)"), "launch")) == 1,
      f"OPENPIM_PROGRESS=1 (file): no launch line: {err!r}")

# the threshold: work shorter than OPENPIM_PROGRESS_AFTER_MS shows nothing
rc, out, err = run_tty(["sync", ITER], OPENPIM_PROGRESS_AFTER_MS="60000")
check(rc == 0 and out == baselines["sync"], "threshold (tty): exit or stdout differs")
check(err == b"", f"threshold (tty): a line for work shorter than the threshold: {err!r}")

# bad settings: a clear message, the run goes on without the line on a file
rc, out, err = run_file(["sync", "1000"], OPENPIM_PROGRESS="yes")
check(rc == 0 and b"OPENPIM_PROGRESS=yes is neither 0 nor 1" in err, f"OPENPIM_PROGRESS=yes: {rc} {err!r}")
rc, out, err = run_file(["sync", "1000"], OPENPIM_PROGRESS="1", OPENPIM_PROGRESS_AFTER_MS="-5")
check(rc == 0 and b"OPENPIM_PROGRESS_AFTER_MS=-5 is not a number" in err, f"AFTER_MS=-5: {rc} {err!r}")

print(f"test_progress: {len(failures)} failed")
sys.exit(1 if failures else 0)

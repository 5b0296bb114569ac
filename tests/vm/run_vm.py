#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The virtual-machine test: unmodified UPMEM programs in real guests, served
by openpimd on the host over vsock (vmlib.py: how guests are run).

Two guests boot at once, each a tenant with its own token and its own
vhost-device-vsock:
  guest a (token alice) holds a rank with a secret while guest b (token bob)
    probes it: b's own rank reads zeros, every request on a's rank (read,
    write, launch, release) and every operator request is refused, a's secret
    is intact afterwards (vm_tenant.c); the daemon runs with --quota 1, so
    both hold a rank at once only because they are different tenants, though
    every guest connection has the same peer credentials (the backends');
  guest a then runs checksum with a wrong token and with none (refused, the
    reason printed by the program), and every bundled example (examples/*,
    among them PrIM-style programs with their own verification: vector_add,
    reduction, histogram, prefix_sum, spmv, binary_search), built statically
    by their own Makefiles; each one's output and modelled run report must be
    those of the same binary run embedded on the host.
A missing dependency (scripts/setup_vm.sh) FAILS the test; OPENPIM_SKIP_VM=1
skips it (exit 77, which ctest reports as skipped).

  run_vm.py --source SRC --build BUILD --deps DEPS --libdpu LIBDPU_STATIC.a --optiming LIBOPTIMING.a
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmlib import SKIP, T0, Failure, Host, files_of, log, make_initramfs, missing_deps, run, sdk_env, static_env  # noqa: E402


def build_programs(a, work, env):
    """Every example, built by its own Makefile against a static libdpu, and
    vm_tenant."""
    senv = static_env(work, a.build, env, a.libdpu, a.optiming)
    names = []
    for name in sorted(os.listdir(os.path.join(a.source, "examples"))):
        src = os.path.join(a.source, "examples", name)
        if not os.path.isfile(os.path.join(src, "Makefile")):
            continue
        shutil.copytree(src, os.path.join(work, "apps", name), ignore=shutil.ignore_patterns("bin"))
        run(["make", "-C", os.path.join(work, "apps", name), "CC=gcc -static", "CXX=g++ -static"], env=senv)
        names.append(name)
    if not names:
        raise Failure("no example under %s/examples" % a.source)
    run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(a.source, "backend"), "-o",
         os.path.join(work, "vm_tenant"), os.path.join(a.source, "tests", "vm", "vm_tenant.c")])
    return names


def embedded_references(work, names, env, dpus):
    """The same binaries on the host, embedded: the output and run report each
    guest run must reproduce."""
    ref = {}
    for name in names:
        report = os.path.join(work, name + ".emb.report")
        p = subprocess.run(["./bin/host_app", "-d", str(dpus)], cwd=os.path.join(work, "apps", name),
                           env=dict(env, OPENPIM_QUIET="1", OPENPIM_REPORT=report), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=600)
        if not re.search(r"^\[OK\]", p.stdout, re.M):
            raise Failure("%s does not pass embedded:\n%s" % (name, p.stdout[-2000:]))
        with open(report) as f:
            ref[name] = (p.stdout, f.read())
    return ref


def normalise(report, launches_only=False):
    """As daemon/tests/run_examples.sh: the measured lines and the momentary
    memory limit differ between any two runs, and the launches of different
    ranks are listed in the order they ended."""
    out = []
    for line in report.splitlines():
        if line.startswith("measured on this host"):
            continue
        line = re.sub(r"\(limit [0-9]+ MB\)", "(limit)", line)
        line = re.sub(r"^ +[0-9]+ launch ", "  # launch ", line)
        if not launches_only or " launch " in line:
            out.append(line)
    return sorted(out)


def compare(names, ref, files, seconds):
    bad = []
    for name in names:
        out, rep = files.get(name + ".out"), files.get(name + ".report")
        emb_out, emb_rep = ref[name]
        only = name == "async_ranks"  # its transfers' place in the timeline follows the order its jobs end
        if out is None or rep is None:
            bad.append("%s: no output or report came back" % name)
        elif out != emb_out:
            bad.append("%s: output in the guest differs from embedded:\n--- embedded\n%s--- guest\n%s" %
                       (name, emb_out, out))
        elif normalise(rep, only) != normalise(emb_rep, only):
            diff = sorted(set(normalise(rep)) ^ set(normalise(emb_rep)))
            bad.append("%s: run report in the guest differs from embedded:\n%s" % (name, "\n".join(diff[:20])))
        else:
            log("%-14s same output and modelled report as embedded (%d lines), %.2f s in the guest: %s" %
                (name, len(normalise(emb_rep, only)), seconds.get(name, -1), out.splitlines()[0][:60]))
    if bad:
        raise Failure("\n".join(bad))


def main():
    ap = argparse.ArgumentParser()
    for k in ("source", "build", "deps", "libdpu", "optiming"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--dpus", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    a = ap.parse_args()
    for k in ("source", "build", "deps", "libdpu", "optiming"):
        setattr(a, k, os.path.abspath(getattr(a, k)))
    if os.environ.get("OPENPIM_SKIP_VM"):
        print("SKIPPED: OPENPIM_SKIP_VM=%s: the virtual-machine test did not run" % os.environ["OPENPIM_SKIP_VM"])
        return SKIP
    missing = missing_deps(a.deps)
    if missing:
        print("FAIL: the virtual-machine test cannot start: missing %s: run scripts/setup_vm.sh (or set "
              "OPENPIM_SKIP_VM=1 to skip the test)" % ", ".join(missing))
        return 1
    work = tempfile.mkdtemp(prefix="opvm-", dir="/tmp")  # short: UNIX socket paths have 108 bytes
    env = sdk_env(a.build)
    host = Host(work, a.build, a.deps, env)
    t = {}
    try:
        t0 = time.monotonic()
        names = build_programs(a, work, env)
        t["build"] = time.monotonic() - t0
        log("built %d examples and vm_tenant statically (%.1f s)" % (len(names), t["build"]))
        t0 = time.monotonic()
        ref = embedded_references(work, names, env, a.dpus)
        t["embedded"] = time.monotonic() - t0
        initrd = make_initramfs(work, a.source, a.deps, {"bin/vm_tenant": os.path.join(work, "vm_tenant")},
                                {"apps/" + n + "/bin": os.path.join(work, "apps", n, "bin") for n in names})
        log("embedded references (%.1f s); initramfs %.1f MB" % (t["embedded"], os.path.getsize(initrd) / 2**20))
        host.token("alice")
        host.token("bob")
        host.start_daemon(["a", "b"], ["--workers", "2", "--quota", "1"])
        t0 = time.monotonic()
        vms = {role: host.boot(role, cid, initrd, "openpim.token=%s openpim.dpus=%d" % (host.tokens[tenant], a.dpus))
               for role, cid, tenant in (("a", 3, "alice"), ("b", 4, "bob"))}
        # a holds a rank with a secret; b probes it; a finds its secret intact
        held = vms["a"].expect(r"@@OPENPIM (HOLD rank=(\d+)|CHECK-FAILED.*)", 300)
        if not held.group(2):
            raise Failure("guest a: " + held.group(1))
        t["boot"] = time.monotonic() - t0
        vms["b"].expect(r"@@OPENPIM READY role=b", 300)
        log("guest a holds rank %s (%.1f s after QEMU started); guest b probes it" % (held.group(2), t["boot"]))
        vms["b"].send("probe %s\n" % held.group(2))
        probe = vms["b"].expect(r"@@OPENPIM (PROBE-OK|PROBE-BAD|CHECK-FAILED.*)", 300)
        if probe.group(1) != "PROBE-OK":
            raise Failure("guest b (tenant bob) on guest a's rank: %s" % probe.group(1))
        vms["b"].expect(r"@@OPENPIM DONE", 60)
        vms["a"].send("go\n")
        hold = vms["a"].expect(r"@@OPENPIM (HOLD-OK|HOLD-BAD|CHECK-FAILED.*)", 120)
        if hold.group(1) != "HOLD-OK":
            raise Failure("guest a's secret after guest b's probe: %s" % hold.group(1))
        log("isolation: every try of guest b (bob) on guest a's (alice's) rank refused, a's secret intact")
        for what, told in (("WRONG-TOKEN", "the token is not valid"), ("NO-TOKEN", "must present a token")):
            m = vms["a"].expect(r"@@OPENPIM %s rc=(\d+) told=(\d+)" % what, 300)
            if m.group(1) == "0" or m.group(2) == "0":
                raise Failure("guest a, checksum with %s: exit %s, '%s' said %s times" % (what.lower(), m.group(1),
                                                                                         told, m.group(2)))
        log("a wrong token and no token: refused, the reason printed by the program")
        t0 = time.monotonic()
        seconds = {}
        for _ in names:
            m = vms["a"].expect(r"@@OPENPIM RUN (\S+) rc=(\d+) seconds=(\S+)", 900)
            seconds[m.group(1)] = float(m.group(3))
        vms["a"].expect(r"@@OPENPIM DONE", 300)
        t["examples"] = time.monotonic() - t0
        for vm in vms.values():
            vm.p.wait(timeout=60)
        compare(names, ref, files_of(vms["a"].logpath), seconds)
        host.stop()
        with open(os.path.join(work, "openpimd.log")) as f:
            dlog = f.read()
        if "(token:alice)" not in dlog or "(token:bob)" not in dlog:
            raise Failure("openpimd's log names neither tenant token:alice nor token:bob")
        log("PASS: %d examples in guest a, two guests' tenants isolated, tokens refused; build %.1f s, embedded "
            "references %.1f s, QEMU start to rank held %.1f s, examples in the guest %.1f s, total %.1f s" %
            (len(names), t["build"], t["embedded"], t["boot"], t["examples"], time.monotonic() - T0))
        return 0
    except (Failure, subprocess.TimeoutExpired, OSError) as e:
        print("FAIL: %s" % e, flush=True)
        host.stop(show=True)
        a.keep = True
        return 1
    finally:
        host.stop()
        if a.keep:
            print("work folder kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The VM path's figures: the workloads of bench/daemon/vpim.sh and
examples.sh run in a QEMU guest (TCG) against openpimd over vsock, beside the
same binaries run embedded on the host, in one run (tests/vm/vmlib.py boots
the guest).  Prints csv lines as bench_vpim.c does
    csv,WORKLOAD,SIDE,SIZE_MB,DPUS,MIN_S,MEDIAN_S,MODELLED_S
with the sides emb (the host, embedded), vm (the guest, optimisations on) and,
for the NW-like workload, vm-C, vm-P, vm-B, vm-PB (batching and prefetch off
and on); WORKLOAD example.NAME is a bundled example's whole run
(host_app -d DPUS), cpu the CPU loop (how much slower the guest's emulated
CPU is).  Timings in the guest are the guest's clock.

  bench/daemon/vm.py [--build DIR] [--reps N] [--dpus N] [--sizes MB,MB] [--steps N] [--example-dpus N]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
source = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(source, "tests", "vm"))
from vmlib import Failure, Host, files_of, log, make_initramfs, missing_deps, run, sdk_env, static_env  # noqa: E402

SCRIPT = r"""
R=backend=remote,vsock=2:5000
say CLOCK $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) $(cat /proc/cmdline)
say BEGIN bench.csv
/bench/bench_vpim cpu 3 {cpu_iters} vm
/bench/bench_vpim nw /bench/dpu_nw {reps} {dpus} {steps} vm-C=$R,remoteBatch=false,remotePrefetch=false \
    vm-P=$R,remoteBatch=false,remotePrefetch=true vm-B=$R,remoteBatch=true,remotePrefetch=false \
    vm-PB=$R,remoteBatch=true,remotePrefetch=true
/bench/bench_vpim calls /bench/dpu_nw {reps} {dpus} {steps} vm=$R,remoteBatch=true
/bench/bench_vpim fig9 /bench/dpu_checksum {reps} {dpus} {sizes} vm=$R,remoteBatch=true,remotePrefetch=true
for dir in /apps/*/; do
    name=$(basename "$dir")
    cd "$dir"
    i=0
    while [ $i -lt {reps} ]; do
        t0=$(cut -d' ' -f1 /proc/uptime)
        UPMEM_PROFILE=$R OPENPIM_QUIET=1 ./bin/host_app -d {example_dpus} >/dev/null 2>&1 || echo "FAILED $name"
        echo "EXAMPLE $name $t0 $(cut -d' ' -f1 /proc/uptime)"
        i=$((i + 1))
    done
done
say END bench.csv
"""


def min_median(xs):
    xs = sorted(xs)
    return xs[0], xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(source, "build"))
    ap.add_argument("--deps", default=os.environ.get("OPENPIM_VM_DEPS", os.path.join(source, "build", "vm-deps")))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dpus", type=int, default=60)
    ap.add_argument("--sizes", default="8,16,32,60")
    ap.add_argument("--steps", type=int, default=83)
    ap.add_argument("--example-dpus", type=int, default=64)
    ap.add_argument("--cpu-iters", type=int, default=10000000)
    a = ap.parse_args()
    build, deps = os.path.abspath(a.build), os.path.abspath(a.deps)
    missing = missing_deps(deps)
    if missing:
        print("bench/daemon/vm.py: missing %s: run scripts/setup_vm.sh" % ", ".join(missing), file=sys.stderr)
        return 1
    work = tempfile.mkdtemp(prefix="opvmb-", dir="/tmp")
    env = sdk_env(build)
    host = Host(work, build, deps, env)
    try:
        libdpu = os.path.join(build, "tests", "vm", "libdpu_static.a")
        optiming = os.path.join(build, "timing", "liboptiming.a")
        senv = static_env(work, build, env, libdpu, optiming)
        bench = os.path.join(work, "bench")
        os.makedirs(bench)
        flags = run(["dpu-pkg-config", "--cflags", "--libs", "dpu"], env=senv).split()
        run(["gcc", "-static", "-O2", "-o", os.path.join(bench, "bench_vpim"), os.path.join(here, "bench_vpim.c")] +
            flags, env=senv)
        for prog, tasklets in (("dpu_checksum", 16), ("dpu_nw", 1)):
            run(["dpu-upmem-dpurte-clang", "-O2", "-DNR_TASKLETS=%d" % tasklets, "-o", os.path.join(bench, prog),
                 os.path.join(here, prog + ".c")], env=dict(env, OPENPIM_QUIET="1"))
        names = []
        for name in sorted(os.listdir(os.path.join(source, "examples"))):
            src = os.path.join(source, "examples", name)
            if not os.path.isfile(os.path.join(src, "Makefile")) or name == "fault":
                continue  # fault measures error paths, not work
            shutil.copytree(src, os.path.join(work, "apps", name), ignore=shutil.ignore_patterns("bin"))
            run(["make", "-C", os.path.join(work, "apps", name), "CC=gcc -static", "CXX=g++ -static"], env=senv)
            names.append(name)
        log("built bench_vpim, its DPU programs and %d examples statically" % len(names))
        # the host, embedded: the same binaries
        exe = os.path.join(bench, "bench_vpim")
        out = [l for l in run([exe, "cpu", "3", str(a.cpu_iters), "host"], env=env).splitlines()]
        out += run([exe, "nw", os.path.join(bench, "dpu_nw"), str(a.reps), str(a.dpus), str(a.steps), "emb="],
                   env=env).splitlines()
        out += run([exe, "calls", os.path.join(bench, "dpu_nw"), str(a.reps), str(a.dpus), str(a.steps), "emb="],
                   env=env).splitlines()
        out += run([exe, "fig9", os.path.join(bench, "dpu_checksum"), str(a.reps), str(a.dpus), a.sizes, "emb="],
                   env=env).splitlines()
        import time
        for name in names:
            ts = []
            for _ in range(a.reps):
                t0 = time.monotonic()
                subprocess.run(["./bin/host_app", "-d", str(a.example_dpus)], cwd=os.path.join(work, "apps", name),
                               env=dict(env, OPENPIM_QUIET="1"), stdout=subprocess.DEVNULL, check=True)
                ts.append(time.monotonic() - t0)
            out.append("csv,example.%s,emb,0,%d,%.6f,%.6f,0" % ((name, a.example_dpus) + min_median(ts)))
        log("embedded on the host: done")
        script = os.path.join(work, "script.sh")
        with open(script, "w") as f:
            f.write(SCRIPT.format(reps=a.reps, dpus=a.dpus, steps=a.steps, sizes=a.sizes, example_dpus=a.example_dpus,
                                  cpu_iters=a.cpu_iters))
        files = {"script.sh": script, "bench/bench_vpim": exe}
        for prog in ("dpu_checksum", "dpu_nw"):
            files["bench/" + prog] = os.path.join(bench, prog)
        initrd = make_initramfs(work, source, deps, files,
                                {"apps/" + n + "/bin": os.path.join(work, "apps", n, "bin") for n in names})
        host.token("bench")
        host.start_daemon(["script"], [])
        vm = host.boot("script", 3, initrd, "openpim.token=%s" % host.tokens["bench"], mem="1G")
        log("guest clock source: %s" % vm.expect(r"@@OPENPIM CLOCK (.*)", 300).group(1))
        vm.expect(r"@@OPENPIM DONE", 3600)
        vm.p.wait(timeout=60)
        text = files_of(vm.logpath).get("bench.csv")
        if text is None:
            raise Failure("the guest sent no results")
        times = {}
        for line in text.splitlines():
            if line.startswith("csv,"):
                out.append(line)
            elif line.startswith("FAILED"):
                raise Failure("in the guest: " + line)
            m = re.match(r"EXAMPLE (\S+) (\S+) (\S+)", line)
            if m:
                times.setdefault(m.group(1), []).append(float(m.group(3)) - float(m.group(2)))
        for name in names:
            out.append("csv,example.%s,vm,0,%d,%.6f,%.6f,0" % ((name, a.example_dpus) + min_median(times[name])))
        print("\n".join(l for l in out if l.startswith("csv,")))
        host.stop()
        shutil.rmtree(work, ignore_errors=True)
        return 0
    except (Failure, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        print("bench/daemon/vm.py: %s (work folder kept: %s)" % (e, work), file=sys.stderr)
        host.stop(show=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())

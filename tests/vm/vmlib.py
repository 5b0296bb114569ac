# SPDX-License-Identifier: MIT
"""Running guests against openpimd on this host, for the virtual-machine test
(run_vm.py) and the VM benchmarks (bench/daemon/vm.py).

A guest is QEMU (TCG, one vCPU: this machine kind's /dev/kvm is PVM, which
does not run a stock guest kernel) booting Debian's cloud kernel with a busybox
initramfs whose /init is init.sh.  QEMU's vhost-user-vsock-pci device hands its
vsock queues to a vhost-device-vsock process of its own, which turns the
guest's connections to host port PORT into connections to the UNIX socket
<uds-path>_PORT: a guest socket of openpimd (--guest-socket).  The guest and
the host talk on the serial console: lines that start with "@@OPENPIM", files
between "@@OPENPIM BEGIN name" and "@@OPENPIM END name", commands on its stdin.
The dependencies come from scripts/setup_vm.sh."""
import os
import queue
import re
import shutil
import subprocess
import threading
import time

SKIP = 77  # ctest's SKIP_RETURN_CODE
PORT = 5000  # the vsock port guests connect to (host CID 2)
T0 = time.monotonic()


def log(*a):
    print("[vm %6.1f s]" % (time.monotonic() - T0), *a, flush=True)


class Failure(Exception):
    pass


def run(argv, stdout_only=False, **kw):
    """Runs argv; its output (stdout, and stderr unless stdout_only), or
    Failure with it."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE if stdout_only else subprocess.STDOUT,
                       text=True, **kw)
    if p.returncode != 0:
        raise Failure("%s failed (exit %d):\n%s%s" % (" ".join(argv), p.returncode, p.stdout[-3000:],
                                                     p.stderr[-3000:] if stdout_only else ""))
    return p.stdout


def missing_deps(deps):
    """What scripts/setup_vm.sh should have installed and is not there."""
    backend = os.path.join(deps, "cargo", "bin", "vhost-device-vsock")
    have = (("qemu-system-x86_64", shutil.which("qemu-system-x86_64")), ("cpio", shutil.which("cpio")),
            ("/bin/busybox", os.path.exists("/bin/busybox")), (backend, os.access(backend, os.X_OK)),
            (deps + "/kernel/vmlinuz", os.path.exists(deps + "/kernel/vmlinuz")))
    return [what for what, ok in have if not ok]


def sdk_env(build):
    """The environment of upmem_env.sh for the SDK in build, without the
    variables that would change what a program does."""
    sdk = os.path.join(build, "sdk")
    env = dict(os.environ, UPMEM_HOME=sdk, OPENPIM_HOME=sdk, PATH=os.path.join(sdk, "bin") + ":" + os.environ["PATH"],
               OPENPIM_WORKER=os.path.join(sdk, "lib", "openpim", "openpim-worker"))
    for k in ("UPMEM_PROFILE", "UPMEM_PROFILE_BASE", "OPENPIM_TOKEN", "OPENPIM_SOCKET", "OPENPIM_REPORT",
              "OPENPIM_REMOTE_BATCH", "OPENPIM_REMOTE_PREFETCH"):
        env.pop(k, None)
    return env


def static_env(work, build, env, libdpu, optiming):
    """env with a dpu-pkg-config in front of the SDK's that links libdpu
    statically (a guest has no SDK): a UPMEM Makefile built with CC='gcc
    -static' (CXX='g++ -static' for a C++ host) then makes a program a guest
    can run."""
    shim = os.path.join(work, "shim")
    os.makedirs(shim, exist_ok=True)
    with open(os.path.join(shim, "dpu-pkg-config"), "w") as f:
        # libdw and its own dependencies: libdpu reads a faulting DPU's source line with it
        f.write("#!/bin/sh\necho -I%s %s %s -ldw -lelf -lz -llzma -lbz2 -lpthread -ldl -lm\n" %
                (os.path.join(build, "sdk", "include", "dpu"), libdpu, optiming))
    os.chmod(os.path.join(shim, "dpu-pkg-config"), 0o755)
    return dict(env, PATH=shim + ":" + env["PATH"])


def make_initramfs(work, source, deps, files, trees):
    """The guest's initramfs: busybox, init.sh as /init, the virtio and vsock
    modules, files {path in the guest: host file} and trees {folder in the
    guest: host folder}."""
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for sub in ("bin", "dev", "proc", "sys", "tmp", "lib/modules"):
        os.makedirs(os.path.join(root, sub))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    shutil.copy(os.path.join(source, "tests", "vm", "init.sh"), os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    os.mknod(os.path.join(root, "dev", "console"), 0o600 | 0o020000, os.makedev(5, 1))
    mods = os.path.join(deps, "kernel", "modules")
    for f in os.listdir(mods):
        shutil.copy(os.path.join(mods, f), os.path.join(root, "lib", "modules", f))
    for dest, src in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, dest)), exist_ok=True)
        shutil.copy(src, os.path.join(root, dest))
    for dest, src in trees.items():
        shutil.copytree(src, os.path.join(root, dest))
    out = os.path.join(work, "initramfs.cpio.gz")
    run(["sh", "-c", "cd '%s' && find . | cpio -o -H newc --quiet | gzip -1 > '%s'" % (root, out)])
    return out


class Proc:
    """A background process whose output lines go to a log file and a queue."""

    def __init__(self, name, argv, logpath, stdin=False, env=None):
        self.name, self.logpath = name, logpath
        self.lines = queue.Queue()
        self.log = open(logpath, "w")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n").replace("\r", "")
            self.log.write(line + "\n")
            self.log.flush()
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, pattern, timeout):
        """The first line from now on matching pattern (a regex match)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Failure("%s: no line matching %r within %.0f s (log: %s)" % (self.name, pattern, timeout,
                                                                                    self.logpath))
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise Failure("%s ended (exit %s) before a line matching %r (log: %s)" %
                              (self.name, self.p.wait(), pattern, self.logpath))
            m = re.search(pattern, line)
            if m:
                return m

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()

    def tail(self, n=25):
        with open(self.logpath, errors="replace") as f:
            return "".join(f.readlines()[-n:])


def files_of(logpath):
    """The files a guest sent on its console: {name: text}."""
    with open(logpath, errors="replace") as f:
        lines = f.read().splitlines()
    files, cur, buf = {}, None, []
    for line in lines:
        m = re.match(r"^@@OPENPIM (BEGIN|END) (\S+)$", line)
        if m and m.group(1) == "BEGIN":
            cur, buf = m.group(2), []
        elif m and cur == m.group(2):
            files[cur] = "".join(l + "\n" for l in buf)
            cur = None
        elif cur is not None:
            buf.append(line)
    return files


class Host:
    """openpimd with a guest socket per guest, a token per tenant, and the
    guests (vhost-device-vsock and QEMU each); stop() ends them all."""

    def __init__(self, work, build, deps, env):
        self.work, self.build, self.deps, self.env = work, build, deps, env
        self.procs, self.tokens = [], {}
        self.store = os.path.join(work, "tokens")

    def token(self, tenant):
        ctl = os.path.join(self.build, "sdk", "bin", "openpimctl")
        tok = run([ctl, "--tokens", self.store, "token", "add", tenant], stdout_only=True).split("\n")[0].strip()
        if not re.fullmatch(r"opm1_[0-9a-f]{64}", tok):
            raise Failure("openpimctl token add %s printed %r" % (tenant, tok))
        self.tokens[tenant] = tok
        return tok

    def start_daemon(self, roles, args):
        """openpimd serving d.sock and a guest socket per role."""
        self.sock = os.path.join(self.work, "d.sock")
        argv = [os.path.join(self.build, "sdk", "bin", "openpimd"), "--socket", self.sock, "--tokens", self.store,
                "-v"] + args
        for role in roles:
            argv += ["--guest-socket", os.path.join(self.work, "%s.vsock_%d" % (role, PORT))]
        self.daemon = Proc("openpimd", argv, os.path.join(self.work, "openpimd.log"), env=self.env)
        self.procs.append(self.daemon)
        self.daemon.expect(r"^openpimd: serving .*d\.sock", 120)

    def boot(self, role, cid, initrd, cmdline, mem="512M"):
        """A guest of its own vhost-device-vsock (guest CID cid); its console."""
        vhost = os.path.join(self.work, role + ".vhost")
        backend = os.path.join(self.deps, "cargo", "bin", "vhost-device-vsock")
        be = Proc("vhost-device-vsock " + role,
                  [backend, "--vm", "guest-cid=%d,socket=%s,uds-path=%s" % (cid, vhost, os.path.join(self.work,
                                                                                                     role + ".vsock"))],
                  os.path.join(self.work, role + ".backend.log"), env=dict(self.env, RUST_LOG="warn"))
        self.procs.append(be)
        end = time.monotonic() + 30
        while not os.path.exists(vhost):
            if be.p.poll() is not None or time.monotonic() > end:
                raise Failure("vhost-device-vsock did not create %s:\n%s" % (vhost, be.tail()))
            time.sleep(0.05)
        argv = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "1", "-m", mem,
                "-object", "memory-backend-memfd,id=mem,size=%s,share=on" % mem, "-numa", "node,memdev=mem",
                "-chardev", "socket,id=vsk,path=" + vhost, "-device", "vhost-user-vsock-pci,chardev=vsk",
                "-nodefaults", "-no-user-config", "-display", "none", "-serial", "stdio", "-no-reboot",
                "-kernel", os.path.join(self.deps, "kernel", "vmlinuz"), "-initrd", initrd,
                "-append", "console=ttyS0 rdinit=/init quiet loglevel=1 panic=-1 openpim.role=%s %s" % (role, cmdline)]
        vm = Proc("guest " + role, argv, os.path.join(self.work, role + ".serial.log"), stdin=True)
        self.procs.append(vm)
        return vm

    def stop(self, show=False):
        for p in self.procs[::-1]:
            p.stop()
            if show:
                print("---- %s (last lines of %s)\n%s" % (p.name, p.logpath, p.tail()))
        self.procs = []

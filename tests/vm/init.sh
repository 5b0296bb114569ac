#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# PID 1 of the test's virtual machines (run_vm.py builds the initramfs): loads
# the virtio and vsock modules, then plays the role the kernel command line
# gives (openpim.role, openpim.token, openpim.dpus) against openpimd on the
# host (vsock CID 2, port 5000) and reports on the console in lines that start
# with "@@OPENPIM"; files go out between "@@OPENPIM BEGIN name" and
# "@@OPENPIM END name".
#   role a: holds a rank with a secret until the host says "go" (while the
#           other VM probes it), then tries a wrong and a missing token, then
#           runs every program under /apps (unmodified UPMEM programs, built
#           statically) with its token, their output and run report sent out
#   role b: waits for "probe RANK" from the host, then tries the other
#           tenant's rank (vm_tenant probe)
#   role script: runs /script.sh (bench/daemon/vm.py) with OPENPIM_TOKEN set
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1
say() { echo "@@OPENPIM $*"; }
for m in $(cat /lib/modules/order); do
    insmod "/lib/modules/$m.ko" || say FAIL insmod "$m"
done
role='' token='' dpus=7
for kv in $(cat /proc/cmdline); do
    case $kv in
    openpim.role=*) role=${kv#*=} ;;
    openpim.token=*) token=${kv#*=} ;;
    openpim.dpus=*) dpus=${kv#*=} ;;
    esac
done
say READY role="$role" uptime="$(cut -d' ' -f1 /proc/uptime)"
remote=backend=remote,vsock=2:5000
case $role in
a)
    vm_tenant hold 2 5000 "$token"
    cd /apps/checksum || say FAIL no checksum
    UPMEM_PROFILE=$remote,token=opm1_0123456789 ./bin/host_app -d "$dpus" >/tmp/wrong 2>&1
    say WRONG-TOKEN rc=$? told="$(grep -c 'the token is not valid' /tmp/wrong)"
    UPMEM_PROFILE=$remote ./bin/host_app -d "$dpus" >/tmp/none 2>&1
    say NO-TOKEN rc=$? told="$(grep -c 'must present a token' /tmp/none)"
    for dir in /apps/*/; do
        name=$(basename "$dir")
        cd "$dir" || continue
        t0=$(cut -d' ' -f1 /proc/uptime)
        UPMEM_PROFILE=$remote,token=$token OPENPIM_QUIET=1 OPENPIM_REPORT=/tmp/$name.report \
            ./bin/host_app -d "$dpus" >"/tmp/$name.out" 2>&1
        rc=$?
        say RUN "$name" rc=$rc seconds="$(echo "$(cut -d' ' -f1 /proc/uptime) $t0" | awk '{print $1 - $2}')"
        for f in out report; do
            say BEGIN "$name.$f"
            cat "/tmp/$name.$f"
            say END "$name.$f"
        done
    done
    ;;
b)
    read -r cmd rank
    if [ "$cmd" = probe ]; then
        vm_tenant probe 2 5000 "$token" "$rank"
    else
        say FAIL "expected 'probe RANK', got '$cmd'"
    fi
    ;;
script)
    export OPENPIM_TOKEN="$token"
    . /script.sh
    ;;
*) say FAIL "no role" ;;
esac
say DONE uptime="$(cut -d' ' -f1 /proc/uptime)"
poweroff -f

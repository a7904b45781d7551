#!/usr/bin/env bash
# The VM the suite boots: Debian 12 with systemd as PID 1 and cgroup v2 only, as hosts run
# kothd. Usage:
#
#   scripts/vm/vm.sh deps          install qemu, debootstrap and a kernel with apt-get
#   scripts/vm/vm.sh image         build (once, cached) the image; print its directory
#   scripts/vm/vm.sh accel         print the accelerator boot would use: kvm or tcg
#   scripts/vm/vm.sh boot DIR [S]  boot the image with DIR shared as /host; inside, DIR/run.sh
#                                  runs (output in DIR/out/output.log); exits with its status.
#                                  S: give up after S seconds (default 3600)
#
# Environment: KOTHD_VM_CACHE (the image cache, default ~/.cache/kothd-vm), KOTHD_VM_ACCEL
# (kvm or tcg: skip the probe), KOTHD_VM_MEM (MiB, default 2048), KOTHD_VM_CPUS (default 2).
# Everything but `deps` and the first `image` runs unprivileged if /dev/kvm or TCG allows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KOTHD_VM_CACHE:-$HOME/.cache/kothd-vm}

die() { echo "vm.sh: $*" >&2; exit 1; }

deps() {
  local need=()
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
  command -v qemu-img >/dev/null || need+=(qemu-utils)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
  if [ ${#need[@]} -gt 0 ]; then
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "vm.sh: installing ${need[*]}" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
  fi
}

# accel prints kvm when a KVM boot really works here, else tcg. /dev/kvm can exist without
# working (nested or emulated KVM that stock kernels hang on): a kernel with no root file
# system must reach its panic within the timeout under KVM, which takes a few seconds when
# KVM is real. The answer is cached per host boot.
accel() {
  if [ -n "${KOTHD_VM_ACCEL:-}" ]; then echo "$KOTHD_VM_ACCEL"; return; fi
  local img=$1 mark
  mark=$cache/accel-$(cat /proc/sys/kernel/random/boot_id)
  if [ -f "$mark" ]; then cat "$mark"; return; fi
  local a=tcg
  if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
    if timeout 40 qemu-system-x86_64 -accel kvm -cpu host -m 256 -kernel "$img/vmlinuz" \
      -append 'console=ttyS0 panic=-1' -no-reboot -nographic -nodefaults -serial stdio 2>/dev/null |
      grep -q 'Kernel panic'; then
      a=kvm
    fi
  fi
  mkdir -p "$cache"; echo "$a" >"$mark"; echo "$a"
}

boot() {
  local dir=$1 limit=${2:-3600} img a
  [ -f "$dir/run.sh" ] || die "boot: $dir/run.sh missing"
  command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64: run 'scripts/vm/vm.sh deps' (as root) first"
  img=$("$here/image.sh") || die "no image: run 'sudo scripts/vm/vm.sh image' once"
  a=$(accel "$img")
  local cpu=max; [ "$a" = kvm ] && cpu=host
  local accelopt=kvm; [ "$a" = tcg ] && accelopt=tcg,thread=multi
  rm -rf "$dir/out"; mkdir -p "$dir/out"
  echo "$a" >"$dir/accel" # the suite inside leaves out what only emulation's slowness fails
  local extra=()
  # Read-only extras: "tag host-dir guest-dir" lines in DIR/extra-shares.
  : >"$dir/mounts"
  if [ -f "$dir/extra-shares" ]; then
    while read -r tag hostdir guestdir; do
      [ -n "$tag" ] || continue
      extra+=(-virtfs "local,path=$hostdir,mount_tag=$tag,security_model=none,readonly=on")
      echo "$tag $guestdir" >>"$dir/mounts"
    done <"$dir/extra-shares"
  fi
  echo "vm.sh: booting $img/image.raw under $a (2 CPUs, ${KOTHD_VM_MEM:-2048} MiB), share $dir" >&2
  local t0=$SECONDS
  set +e
  timeout --foreground "$limit" qemu-system-x86_64 -accel "$accelopt" -cpu "$cpu" -smp "${KOTHD_VM_CPUS:-2}" -m "${KOTHD_VM_MEM:-2048}" \
    -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
    -append 'root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=1 systemd.show_status=0 quiet' \
    -drive "file=$img/image.raw,format=raw,if=virtio" -snapshot \
    -virtfs "local,path=$dir,mount_tag=host,security_model=none" "${extra[@]}" \
    -nic none -nographic -no-user-config </dev/null >"$dir/console.log" 2>&1
  local qrc=$?
  set -e
  echo "vm.sh: qemu exited $qrc after $((SECONDS - t0))s" >&2
  if [ ! -f "$dir/out/status" ]; then
    tail -40 "$dir/console.log" >&2
    [ "$qrc" -eq 124 ] && die "the VM did not finish within ${limit}s (console above, whole in $dir/console.log)"
    die "the VM ended without running $dir/run.sh to the end (qemu status $qrc; console above, whole in $dir/console.log). Check: 'sudo scripts/vm/vm.sh image' built, /dev/kvm or TCG usable (KOTHD_VM_ACCEL=tcg)"
  fi
  return "$(cat "$dir/out/status")"
}

case "${1:-}" in
  deps) deps ;;
  image) "$here/image.sh" ;;
  accel) accel "$("$here/image.sh")" ;;
  boot) shift; boot "$@" ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

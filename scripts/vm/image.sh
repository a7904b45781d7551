#!/usr/bin/env bash
# Builds (once) the Debian 12 image the VM suite boots, and prints the directory holding
# it: image.raw (ext4, the whole root file system), vmlinuz and initrd.img (the image's own
# kernel, whose modules are in the image: virtio, 9p). Cached under $KOTHD_VM_CACHE
# (default ~/.cache/kothd-vm) by a hash of this script and the package list: editing either
# builds a new image; delete the cache directory to force one.
#
# Needs root (debootstrap, chroot) and the packages `vm.sh deps` installs. The mirror is
# the one apt uses on this machine (the first deb.debian.org-like URI of
# /etc/apt/sources.list*), or $KOTHD_VM_MIRROR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KOTHD_VM_CACHE:-$HOME/.cache/kothd-vm}

# What the tests and the quick start need inside: systemd as PID 1, bubblewrap, the bundled
# languages' toolchains (Debian's python3 with numpy, gcc for C answers and cgo-free test
# helpers), sudo (the quick start's commands are run as written), the kernel (its initrd
# and modules), and a few tools the suite's checks use.
packages=(
  systemd systemd-sysv dbus udev kmod procps util-linux iproute2
  linux-image-amd64 initramfs-tools
  bubblewrap python3 python3-numpy gcc libc6-dev sudo
  ca-certificates sqlite3 jq
)
key=$( (cat "$0" "$here/guest/vm-runner" "$here/guest/kothd-vm-runner.service"; printf '%s\n' "${packages[@]}") | sha256sum | cut -c1-16)
out=$cache/debian12-$key
if [ -f "$out/image.raw" ] && [ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ]; then
  echo "$out"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "image.sh: building the image needs root (debootstrap); run it with sudo" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "image.sh: no debootstrap: run scripts/vm/vm.sh deps" >&2; exit 1; }

mirror=${KOTHD_VM_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    sed -nE 's/^(URIs:|deb)[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?:[^[:space:]]+).*/\3/p' | grep -v security | head -1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
start=$(date +%s)
echo "image.sh: debootstrap bookworm from $mirror into $root" >&2
debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -30 "$work/debootstrap.log" >&2; echo "image.sh: debootstrap failed (log above)" >&2; exit 1; }

# Root on the virtio disk, the test share on 9p (mounted by the runner unit, which knows
# whether the share is there).
cat >"$root/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
FSTAB
echo kothd-vm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 kothd-vm\n' >"$root/etc/hosts"
# No password for root on the serial console: the VM has no network and lives for one run.
chroot "$root" passwd -d root >/dev/null
# The initrd (made by the kernel package's install, MODULES=most) holds virtio_blk and
# ext4, whatever the build host has: the root disk is found.

# The runner: at boot, mount the share, run /host/run.sh, write its exit status, power off.
install -m 755 "$here/guest/vm-runner" "$root/usr/local/sbin/vm-runner"
install -m 644 "$here/guest/kothd-vm-runner.service" "$root/etc/systemd/system/kothd-vm-runner.service"
ln -sf /etc/systemd/system/kothd-vm-runner.service "$root/etc/systemd/system/multi-user.target.wants/kothd-vm-runner.service"
# Nothing waits for a network that is not there.
chroot "$root" systemctl mask systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer >/dev/null 2>&1 || true
rm -f "$root"/var/cache/apt/archives/*.deb

cp -L "$root/vmlinuz" "$work/vmlinuz"
cp -L "$root/initrd.img" "$work/initrd.img"
truncate -s 4G "$work/image.raw"
mkfs.ext4 -q -L kothd-vm -d "$root" "$work/image.raw"
mkdir -p "$out"
mv "$work/vmlinuz" "$work/initrd.img" "$work/image.raw" "$out/"
echo "image.sh: built $out in $(( $(date +%s) - start ))s" >&2
echo "$out"

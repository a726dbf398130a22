#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up of a Debian 12 (bookworm) or 13 (trixie) machine, as
# root, for building the module and running the VM tests.  Installs only
# what is missing and says what and where; a fast no-op when everything is
# there.  Output of apt and pip goes to a log; its tail is shown on failure.
#
# What it changes on the host:
# - Debian packages (apt-get): the tools below, and the headers of the
#   kernels to test whose image the host already has in /boot.  No kernel
#   image is installed: any other kernel of the release is fetched by
#   tests/lib/kernels.sh into $PKTGEN_CACHE/kernels/KREL (its image
#   unpacked there, its headers in a debootstrapped root of the release
#   beside it), so the host's boot entries and default kernel stay as
#   they are.
# - virtme-ng (vng): Debian's package where the release has one at least
#   $VNG_VERSION, else a venv of its own under $PKTGEN_CACHE (default
#   ~/.cache/pktgen), with pip inside that venv only (no system-wide pip).
#   An existing vng on PATH at that version is used as it is.
#   $PKTGEN_CACHE/bin/vng links to the vng chosen (tests/lib/vm.sh's).
# - `setup.sh check` (make check): also linux-source-6.12 (checkpatch.pl,
#   CHECK_PKGS) and the newest kernel Debian builds
#   (trixie-backports'), fetched into the cache like the others
#   (tests/lib/kernels.sh newest; CHECK_NEWEST=KREL names another, none
#   leaves it out) and the oldest the module supports, Debian 11's 5.10
#   (kernels.sh oldest; CHECK_OLDEST likewise).
# - `setup.sh many-hosts` (make check-many-hosts): also MANY_PKGS, with
#   openssh-server's units masked on a host that had no sshd.
set -u

VNG_VERSION=1.42
CACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}
VENV=$CACHE/virtme-ng-$VNG_VERSION
LOG=${SETUP_LOG:-/tmp/pktgen-setup.log}
export DEBIAN_FRONTEND=noninteractive

. /etc/os-release 2>/dev/null
RELEASE=${VERSION_CODENAME:-unknown}

# udev: vng's guest init names the virtio-serial ports (virtme.ret, which
# carries the guest's exit status) through it; without udevd vng exits 255
# after a run that went well.  A host with a kernel image installed has it
# already (initramfs-tools pulls it in): a fresh one does not.
APT_PKGS=(qemu-system-x86 busybox-static kmod udev tcpdump iproute2 ethtool
	procps util-linux python3 python3-venv file ca-certificates make gcc
	sparse dkms shellcheck python3-docutils python3-matplotlib man-db)
# `setup.sh check` also: checkpatch.pl for the lint gate (tests/lib/style.sh
# takes it from this tarball; Debian packages it nowhere else), too big for
# `make run`; the Prometheus server, its client library, curl and Chromium
# for the exporter's and the console page's tests (tests/exporter.sh,
# console.sh, tests/host/exporter.sh), ansible-core and ansible-lint for
# the collection's (tests/host/ansible.sh), which skip without them
CHECK_PKGS=(linux-source-6.12 prometheus python3-prometheus-client curl chromium
	ansible-core ansible-lint)
# `setup.sh many-hosts` (make check-many-hosts): the controller's Ansible
# and ssh, and the sshd that tests/many-hosts.sh starts in each guest
# from the host's root.  Debian's openssh-server starts a listening sshd
# on the host when installed: where it is not installed yet, its units
# are masked first, so that the guests' are the only sshd it brings.
MANY_PKGS=(ansible-core openssh-client openssh-server)
# The kernels to test, by their headers' metapackages.  Debian 12 has 6.1
# (linux-headers-amd64) and 6.12 (linux-headers-6.12-amd64); Debian 13 has
# 6.12 only (linux-headers-amd64).
case $RELEASE in
bookworm)
	KERNEL_METAS=(linux-headers-amd64 linux-headers-6.12-amd64)
	KERNEL_NOTE="Debian 12: 6.1 and 6.12" ;;
*)
	KERNEL_METAS=(linux-headers-amd64)
	KERNEL_NOTE="Debian $RELEASE: its linux-headers-amd64 only (6.12 on 13; no 6.1)" ;;
esac

fail() {
	echo "setup: $*" >&2
	if [ -s "$LOG" ]; then
		echo "setup: last lines of $LOG:" >&2
		tail -n 30 "$LOG" >&2
	fi
	exit 1
}

installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

apt_install() {	# PKG...
	[ "$(id -u)" -eq 0 ] || fail "need root to install: $*"
	echo "setup: apt-get install $* (log: $LOG)"
	t0=$SECONDS
	{ [ -n "${apt_updated:-}" ] || apt-get update; } >>"$LOG" 2>&1 ||
		fail "apt-get update failed"
	apt_updated=1
	apt-get install -y -q "$@" >>"$LOG" 2>&1 || fail "apt-get install failed"
	echo "setup: apt done in $((SECONDS - t0))s"
}

# pyenv's shims may hold pip's scripts (vng); make sure they are on PATH
for d in "${PYENV_ROOT:-$HOME/.pyenv}/shims" "$HOME/.local/bin"; do
	case ":$PATH:" in *":$d:"*) ;; *) [ -d "$d" ] && PATH="$d:$PATH" ;; esac
done

# KREL of a headers metapackage: the linux-headers-KREL it depends on,
# as installed (the host's kernel stays the one tested), else as apt
# would install it
krel_of() {
	if installed "$1"; then
		dpkg-query -W -f='${Depends}' "$1" | tr ',' '\n'
	else
		apt-cache depends "$1" 2>/dev/null | sed -n 's/^ *Depends: //p'
	fi | sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1
}

# Each kernel to test is either the host's own (its image in /boot: its
# headers are installed here) or fetched into the cache by kernels.sh
# (image unpacked, headers in a debootstrapped root of the release: the
# headers of Debian 12's 6.12 depend on its image, so they cannot go on
# the host without installing that image as the host's).
missing=() hosted=() fetched=()
[ "${1:-}" = check ] && APT_PKGS+=("${CHECK_PKGS[@]}")
if [ "${1:-}" = many-hosts ]; then
	APT_PKGS+=("${MANY_PKGS[@]}")
	if ! installed openssh-server && [ "$(id -u)" -eq 0 ] && command -v systemctl >/dev/null; then
		systemctl mask ssh.service ssh.socket >>"$LOG" 2>&1 &&
			echo "setup: openssh-server's ssh.service and ssh.socket masked before it is" \
			     "installed (the test runs its own sshd in the guests;" \
			     "systemctl unmask ssh.service ssh.socket to serve this host)"
	fi
fi
for p in "${APT_PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
[ -n "$(apt-cache policy "${KERNEL_METAS[0]}" 2>/dev/null |
	sed -n 's/^ *Candidate: \([^(]\)/\1/p')" ] ||
	{ [ "$(id -u)" -eq 0 ] && apt-get update >>"$LOG" 2>&1 && apt_updated=1; }
for m in "${KERNEL_METAS[@]}"; do
	k=$(krel_of "$m")
	[ -n "$k" ] || fail "$m: which linux-headers-KREL does it depend on? (apt-get update?)"
	if [ -e "/boot/vmlinuz-$k" ]; then
		hosted+=("$k")
		installed "linux-headers-$k" || missing+=("linux-headers-$k")
	else
		fetched+=("$k")
	fi
done
note="setup: kernels to test: $KERNEL_NOTE"
[ ${#hosted[@]} -gt 0 ] && note+="; in /boot: ${hosted[*]}"
[ ${#fetched[@]} -gt 0 ] && note+="; into the cache: ${fetched[*]}"
echo "$note"
if [ ${#fetched[@]} -gt 0 ]; then
	installed debootstrap || missing+=(debootstrap)
fi
[ ${#missing[@]} -gt 0 ] && apt_install "${missing[@]}"

for k in "${fetched[@]}"; do
	[ -e "$CACHE/kernels/$k/suite" ] &&
		PKTGEN_CACHE=$CACHE "$(dirname "$0")/kernels.sh" list | grep -qxF "$k" &&
		continue
	[ "$(id -u)" -eq 0 ] || fail "need root to fetch $k"
	echo "setup: $k: image unpacked into $CACHE/kernels/$k, headers into a" \
		"debootstrapped $RELEASE root there (not installed as this host's;" \
		"log: $LOG)"
	t0=$SECONDS
	KERNELS_LOG=$LOG PKTGEN_CACHE=$CACHE APT_HOST=1 \
		"$(dirname "$0")/kernels.sh" fetch "$k" >>"$LOG" 2>&1 ||
		fail "$k: tests/lib/kernels.sh fetch failed"
	touch "$CACHE/kernels/$k/suite"
	echo "setup: $k ready in $((SECONDS - t0))s"
done

# vng: VNG_VERSION or newer (Debian's package), or exactly the pin (pip)
vng_ver() { "$1" --version 2>/dev/null | sed -n 's/^virtme-ng \([0-9.]*\).*/\1/p'; }
vng_good() {
	local v
	v=$(vng_ver "$1")
	[ -n "$v" ] && dpkg --compare-versions "$v" ge "$VNG_VERSION"
}

VNG=""
if [ -x "$CACHE/bin/vng" ] && vng_good "$CACHE/bin/vng"; then
	VNG=$(readlink -f "$CACHE/bin/vng")
elif p=$(command -v vng) && vng_good "$p"; then
	VNG=$p
elif [ -x "$VENV/bin/vng" ] && vng_good "$VENV/bin/vng"; then
	VNG=$VENV/bin/vng
fi
if [ -z "$VNG" ]; then
	cand=$(apt-cache policy virtme-ng 2>/dev/null | sed -n 's/^ *Candidate: //p')
	if [ -n "$cand" ] && [ "$cand" != "(none)" ] &&
	   dpkg --compare-versions "$cand" ge "$VNG_VERSION"; then
		apt_install virtme-ng
		VNG=/usr/bin/vng
	else
		echo "setup: Debian $RELEASE's virtme-ng: ${cand:-none}" \
			"(want $VNG_VERSION or newer); pip installs it into a venv"
		echo "setup: python3 -m venv $VENV; pip install" \
			"virtme-ng==$VNG_VERSION there (log: $LOG)"
		t0=$SECONDS
		rm -rf "$VENV"
		mkdir -p "$CACHE"
		python3 -m venv "$VENV" >>"$LOG" 2>&1 || fail "python3 -m venv failed"
		"$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION" >>"$LOG" 2>&1 ||
			fail "pip install virtme-ng==$VNG_VERSION (in $VENV) failed"
		echo "setup: venv done in $((SECONDS - t0))s"
		VNG=$VENV/bin/vng
	fi
	vng_good "$VNG" || fail "$VNG is not virtme-ng $VNG_VERSION or newer"
fi
mkdir -p "$CACHE/bin"
[ "$(readlink "$CACHE/bin/vng")" = "$VNG" ] || ln -sfn "$VNG" "$CACHE/bin/vng"

list=suite
if [ "${1:-}" = check ] && [ "${CHECK_NEWEST:-newest}" != none ]; then
	list=check
	t0=$SECONDS
	KERNELS_LOG=$LOG PKTGEN_CACHE=$CACHE "$(dirname "$0")/kernels.sh" newest \
		>>"$LOG" 2>&1 || fail "the newest kernel: tests/lib/kernels.sh newest failed"
	k=$(sed -n 's/^kernels: newest: //p' "$LOG" | tail -n 1)
	echo "setup: the newest kernel for make check: $k, in $CACHE/kernels/$k" \
		"(headers in a debootstrapped trixie root; $((SECONDS - t0))s)"
fi
if [ "${1:-}" = check ] && [ "${CHECK_OLDEST:-oldest}" != none ]; then
	list=check
	t0=$SECONDS
	KERNELS_LOG=$LOG PKTGEN_CACHE=$CACHE "$(dirname "$0")/kernels.sh" oldest \
		>>"$LOG" 2>&1 || fail "the oldest kernel: tests/lib/kernels.sh oldest failed"
	k=$(sed -n 's/^kernels: oldest: //p' "$LOG" | tail -n 1)
	echo "setup: the oldest kernel for make check: $k, in $CACHE/kernels/$k" \
		"(headers in a debootstrapped bullseye root; $((SECONDS - t0))s)"
fi
kernels=$(PKTGEN_CACHE=$CACHE "$(dirname "$0")/kernels.sh" $list | tr '\n' ' ')
[ -n "$kernels" ] || fail "no kernel with headers in /lib/modules/*/build and an image"
echo "setup: ok: vng $(vng_ver "$VNG") at $VNG, kernels: ${kernels% }"

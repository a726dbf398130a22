#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up of a Debian bookworm machine (as root) for building the
# module and running the VM tests.  Installs only what is missing; a fast
# no-op when everything is there.  Output goes to a log; its tail is shown
# on failure.
set -u

APT_PKGS=(qemu-system-x86 busybox-static kmod tcpdump iproute2 ethtool procps
	util-linux python3 make gcc sparse dkms
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64)
VNG_VERSION=1.42
LOG=${SETUP_LOG:-/tmp/pktgen-setup.log}
export DEBIAN_FRONTEND=noninteractive

fail() {
	echo "setup: $*" >&2
	if [ -s "$LOG" ]; then
		echo "setup: last lines of $LOG:" >&2
		tail -n 30 "$LOG" >&2
	fi
	exit 1
}

# pyenv's shims hold pip's scripts (vng); make sure they are on PATH
for d in "${PYENV_ROOT:-$HOME/.pyenv}/shims" "$HOME/.local/bin"; do
	case ":$PATH:" in *":$d:"*) ;; *) [ -d "$d" ] && PATH="$d:$PATH" ;; esac
done

missing=()
for p in "${APT_PKGS[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = \
		"install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || fail "need root to install: ${missing[*]}"
	echo "setup: installing ${missing[*]} (log: $LOG)"
	t0=$SECONDS
	{ apt-get update && apt-get install -y -q "${missing[@]}"; } >>"$LOG" 2>&1 ||
		fail "apt-get install failed"
	echo "setup: apt done in $((SECONDS - t0))s"
fi

vng_ok() {
	command -v vng >/dev/null 2>&1 &&
		[ "$(vng --version 2>/dev/null)" = "virtme-ng $VNG_VERSION" ]
}
if ! vng_ok; then
	PIP=$(command -v pip || command -v pip3) || fail "no pip on PATH"
	echo "setup: installing virtme-ng==$VNG_VERSION with $PIP (log: $LOG)"
	"$PIP" install -q "virtme-ng==$VNG_VERSION" >>"$LOG" 2>&1 ||
		fail "pip install virtme-ng==$VNG_VERSION failed"
	command -v pyenv >/dev/null 2>&1 && pyenv rehash >>"$LOG" 2>&1
	hash -r
	vng_ok || fail "vng $VNG_VERSION not found on PATH after install"
fi

kernels=$(for b in /lib/modules/*/build; do
	[ -d "$b" ] && basename "$(dirname "$b")"; done | sort -V | tr '\n' ' ')
[ -n "$kernels" ] || fail "no kernel headers in /lib/modules/*/build"
echo "setup: ok: vng $VNG_VERSION at $(command -v vng), kernels: ${kernels% }"

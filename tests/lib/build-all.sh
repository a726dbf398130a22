#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build pktgen.ko for every installed kernel (/lib/modules/*/build) and
# every kernel of tests/lib/kernels.sh's cache into build/KV/ with W=1,
# and the tests' C programs into build/helpers/ (make helpers).
# Fails on a build error or on any compiler warning.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
VERSION=$(make -s --no-print-directory -C "$REPO" version)
KCACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/kernels
rc=0 n=0

# "KV [ROOT]" for each kernel: the installed ones (no ROOT: the host) and
# those of tests/lib/kernels.sh's cache, whose headers are in a
# debootstrapped root (ROOT) to build in with chroot.  KERNELS="KV..."
# builds only these (a :fast suffix, vm.sh's, is ignored).
targets() {
	local b kv
	for b in /lib/modules/*/build; do
		[ -d "$b" ] && basename "$(dirname "$b")"
	done
	for kv in $("$REPO/tests/lib/kernels.sh" list 2>/dev/null); do
		[ -d "/lib/modules/$kv/build" ] && continue
		echo "$kv $KCACHE/root-$(cat "$KCACHE/$kv/root")"
	done
}

# make in ROOT (chroot, with the build dir bound at /pktgen-build and a
# /proc, which objtool reads, mounted in a mount namespace of its own:
# nothing stays mounted after it), or here
kmake() {	# KV ROOT DIR MAKE-ARGS...
	local kv=$1 root=$2 dir=$3
	shift 3
	if [ -z "$root" ]; then
		nice make -C "/lib/modules/$kv/build" M="$dir" "$@"
		return
	fi
	mkdir -p "$root/pktgen-build" || return 1
	# shellcheck disable=SC2016
	nice unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind "$1" "$2/pktgen-build" &&
		mount -t proc proc "$2/proc" &&
		shift 2 && exec chroot "$0" make "$@"' \
		"$root" "$dir" "$root" -C "/lib/modules/$kv/build" M=/pktgen-build "$@"
}

while read -r kv root; do
	[ -n "${KERNELS:-}" ] && ! [[ " ${KERNELS//:fast/} " = *" $kv "* ]] && continue
	n=$((n + 1))
	dir=$REPO/build/$kv
	mkdir -p "$dir"
	# a fresh copy of the sources; keep objects of unchanged files
	find "$dir" -maxdepth 1 \( -name '*.c' -o -name '*.h' \) -delete
	srcs=()
	for f in ./*.c ./*.h; do [[ $f == *.mod.c ]] || srcs+=("$f"); done
	cp Kbuild "${srcs[@]}" "$dir"/ 2>/dev/null
	# the uapi header the module shares with user space
	rm -rf "$dir/include" && cp -r include "$dir"/
	if [ ! -f "$dir/Kbuild" ] || ! ls "$dir"/*.c >/dev/null 2>&1; then
		echo "build $kv: FAILED (no Kbuild or *.c at $REPO)"
		rc=1
		continue
	fi
	log=$dir/build.log
	kmake "$kv" "$root" "$dir" -j"$(nproc)" W=1 PKTGEN_VERSION="$VERSION" modules </dev/null >"$log" 2>&1
	st=$?
	if [ "$st" -ne 0 ]; then
		echo "build $kv: FAILED (make exit $st)"
		grep -E 'error|warning:' "$log" | head -n 50
		tail -n 20 "$log"
		rc=1
	elif grep -q 'warning:' "$log"; then
		echo "build $kv: FAILED (warnings)"
		grep -A3 'warning:' "$log" | head -n 80
		rc=1
	elif [ ! -f "$dir/pktgen.ko" ]; then
		echo "build $kv: FAILED (no pktgen.ko)"
		rc=1
	else
		echo "build $kv: ok${root:+ (in $root)}"
	fi
done < <(targets)
[ "$n" -gt 0 ] || { echo "build: no /lib/modules/*/build"; exit 1; }
# the tests' C programs (build/helpers/), for the host and its VMs alike
if make -s --no-print-directory -C "$REPO" helpers; then
	echo "build helpers: ok"
else
	echo "build helpers: FAILED"
	rc=1
fi
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build pktgen.ko for every installed kernel (/lib/modules/*/build) and
# every kernel of tests/lib/kernels.sh's cache into build/KV/ with W=1,
# and the tests' C programs into build/helpers/ (make helpers).
# Fails on a build error or on any compiler warning.
#   --list	only print the kernels it builds, one "KV [ROOT]" a line
#   --sparse	after each build, sparse (C=2) over every source against
#		that kernel; fails on any line sparse prints (exit 4: a
#		kernel whose headers this sparse cannot read, none failed)
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/kmake.sh
. "$REPO/tests/lib/kmake.sh"
cd "$REPO" || exit 1
VERSION=$(make -s --no-print-directory -C "$REPO" version)
KCACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/kernels
rc=0 n=0 skipped=0
mode=${1:-build}

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

# copy SRC... into DIR where they differ: an unchanged file keeps its
# object (a second run, such as tests/host/lint.sh's after make check's,
# builds nothing); files the tree no longer has go
sync_sources() {	# DIR SRC... (paths in the repository: ., ipoption/, probes/)
	local dir=$1 f
	shift
	mkdir -p "$dir/ipoption" "$dir/probes"
	for f in "$dir"/*.c "$dir"/*.h "$dir"/ipoption/*.c "$dir"/ipoption/*.h \
		"$dir"/probes/*.c "$dir"/probes/*.sym; do
		[[ $f = *.mod.c ]] && continue
		[ ! -e "$f" ] || [ -e "${f#"$dir"/}" ] || rm -f "$f"
	done
	for f in "$@"; do
		cmp -s "$f" "$dir/$f" || cp "$f" "$dir/$f"
	done
	# the uapi header pf_ipoption shares with user space
	diff -r -q include "$dir/include" >/dev/null 2>&1 ||
		{ rm -rf "$dir/include" && cp -r include "$dir"/; }
}

# sparse over every source (C=2 checks files make need not rebuild),
# with the arguments of the build so that nothing is rebuilt.
# KBUILD_CHECKSRC on the command line: newer kernels' Makefiles test the
# checker with scripts/checker-valid.sh, which Debian's headers lack, and
# would turn the check off; a sparse too old for the headers shows itself
# below instead.  Exit 1 on any line sparse prints, 4 if this sparse
# cannot read the kernel's headers.
sparse_check() {	# KV ROOT DIR
	local kv=$1 root=$2 dir=$3 check=sparse out st
	[ -n "$root" ] && check=/pktgen-sparse
	# the host's sparse in a root of an older release (bullseye's
	# libc is older than the one it was linked against) cannot run:
	# there the root's own sparse (kernels.sh installs bullseye's)
	# shellcheck disable=SC2016
	if [ -n "$root" ] && ! unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind "$1" "$0/pktgen-sparse" &&
		exec chroot "$0" /pktgen-sparse --version' \
		"$root" "$(command -v sparse)" >/dev/null 2>&1; then
		if ! chroot "$root" sparse --version >/dev/null 2>&1; then
			echo "sparse $kv: skipped (the host's sparse does not run in" \
				"$root, its libc is older, and the root has no sparse" \
				"of its own: tests/lib/kernels.sh fetch $kv installs it)"
			return 4
		fi
		check=sparse
	fi
	kmake "$kv" "$root" "$dir" -j"$(nproc)" W=1 PKTGEN_VERSION="$VERSION" \
		C=2 KBUILD_CHECKSRC=2 CHECK="$check" modules \
		</dev/null >"$dir/sparse.log" 2>&1
	st=$?
	out=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$dir/sparse.log")
	if grep -q 'error: got __typeof_unqual__' <<<"$out"; then
		# 6.14's headers use it; Debian's sparse 0.6.4 predates it
		echo "sparse $kv: skipped ($(sparse --version) cannot read" \
			"its headers: __typeof_unqual__; a newer sparse can)"
		return 4
	elif [ "$st" -ne 0 ]; then
		echo "sparse $kv: FAILED (make exit $st)"
		tail -n 20 "$dir/sparse.log"
		return 1
	elif [ -n "$out" ]; then
		echo "sparse $kv: FAILED ($(wc -l <<<"$out") lines)"
		echo "$out"
		return 1
	elif ! grep -q '^ *CHECK ' "$dir/sparse.log"; then
		echo "sparse $kv: FAILED (make checked no file: $dir/sparse.log)"
		return 1
	fi
	echo "sparse $kv: clean"
}

# the tests' own modules (tests/kmod/) and the bench's floor (bench/floor/),
# never installed or packaged, into DIR, with the same W=1 and no warning
# allowed
build_test_modules() {	# KV ROOT DIR [SRC]
	local kv=$1 root=$2 dir=$3 src=${4:-tests/kmod} f
	mkdir -p "$dir"
	for f in "$src"/Kbuild "$src"/*.c; do
		cmp -s "$f" "$dir/${f##*/}" || cp "$f" "$dir/"
	done
	if ! kmake "$kv" "$root" "$dir" -j"$(nproc)" W=1 modules </dev/null >"$dir/build.log" 2>&1 ||
		grep -q 'warning:' "$dir/build.log"; then
		echo "build $kv: FAILED ($src)"
		grep -E -A3 'error|warning:' "$dir/build.log" | head -n 40
		return 1
	fi
}

if [ "$mode" = --sparse ] && ! command -v sparse >/dev/null; then
	echo "sparse: not installed"
	exit 4
fi

while read -r kv root; do
	[ -n "${KERNELS:-}" ] && ! [[ " ${KERNELS//:fast/} " = *" $kv "* ]] && continue
	n=$((n + 1))
	if [ "$mode" = --list ]; then
		echo "$kv${root:+ $root}"
		continue
	fi
	dir=$REPO/build/$kv
	mkdir -p "$dir"
	# probes/: the feature probes Kbuild runs first (.probes/ in DIR)
	srcs=(Kbuild ipoption/Kbuild probes/Kbuild.probes)
	for f in *.c *.h ipoption/*.c ipoption/*.h probes/*.c probes/*.sym; do
		[ -e "$f" ] && [[ $f != *.mod.c ]] && srcs+=("$f")
	done
	sync_sources "$dir" "${srcs[@]}"
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
	elif [ ! -f "$dir/pktgen.ko" ] || [ ! -f "$dir/ipoption/pf_ipoption.ko" ]; then
		echo "build $kv: FAILED (no pktgen.ko or ipoption/pf_ipoption.ko)"
		rc=1
	elif ! build_test_modules "$kv" "$root" "$dir/kmod" ||
	     ! build_test_modules "$kv" "$root" "$dir/floor" bench/floor; then
		rc=1
	else
		echo "build $kv: ok${root:+ (in $root)}"
		if [ "$mode" = --sparse ]; then
			sparse_check "$kv" "$root" "$dir"
			case $? in
			0) ;;
			4) skipped=$((skipped + 1)) ;;
			*) rc=1 ;;
			esac
		fi
	fi
done < <(targets)
[ "$mode" = --list ] && exit 0
[ "$n" -gt 0 ] || { echo "build: no /lib/modules/*/build"; exit 1; }
# the tests' C programs (build/helpers/), for the host and its VMs alike
if make -s --no-print-directory -C "$REPO" helpers; then
	echo "build helpers: ok"
else
	echo "build helpers: FAILED"
	rc=1
fi
[ "$rc" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 4
exit "$rc"

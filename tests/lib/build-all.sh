#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build pktgen.ko for every installed kernel (/lib/modules/*/build) into
# build/KV/ with W=1.  Fails on a build error or on any compiler warning.
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
VERSION=$(make -s --no-print-directory -C "$REPO" version)
rc=0 n=0

for b in /lib/modules/*/build; do
	[ -d "$b" ] || continue
	kv=$(basename "$(dirname "$b")")
	n=$((n + 1))
	dir=$REPO/build/$kv
	mkdir -p "$dir"
	# a fresh copy of the sources; keep objects of unchanged files
	find "$dir" -maxdepth 1 \( -name '*.c' -o -name '*.h' \) -delete
	cp Kbuild $(ls ./*.c ./*.h 2>/dev/null | grep -v '\.mod\.c$') "$dir"/ 2>/dev/null
	if [ ! -f "$dir/Kbuild" ] || ! ls "$dir"/*.c >/dev/null 2>&1; then
		echo "build $kv: FAILED (no Kbuild or *.c at $REPO)"
		rc=1
		continue
	fi
	log=$dir/build.log
	make -C "$b" M="$dir" W=1 PKTGEN_VERSION="$VERSION" modules >"$log" 2>&1
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
		echo "build $kv: ok"
	fi
done
[ "$n" -gt 0 ] || { echo "build: no /lib/modules/*/build"; exit 1; }
exit "$rc"

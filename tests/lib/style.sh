#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Style gates: checkpatch.pl --no-tree --strict -f on every *.c / *.h (if
# a checkpatch is found: $CHECKPATCH, PATH, an unpacked linux-source tree,
# or scripts/ extracted once from /usr/src/linux-source-*.tar.xz), and
# sparse (make C=2) against the newest kernel's headers (if installed).
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
rc=0

find_checkpatch() {
	local c tarball dir
	for c in "${CHECKPATCH:-}" "$(command -v checkpatch.pl)" \
		/usr/src/linux-source-*/scripts/checkpatch.pl \
		"$REPO"/build/checkpatch/*/scripts/checkpatch.pl; do
		[ -n "$c" ] && [ -f "$c" ] && { echo "$c"; return 0; }
	done
	# shellcheck disable=SC2012 # sorted by version: ls -d with sort -V
	tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || return 1
	dir=$REPO/build/checkpatch
	mkdir -p "$dir"
	echo "style: extracting checkpatch from $tarball (once)" >&2
	tar -xf "$tarball" -C "$dir" --wildcards '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' || return 1
	# shellcheck disable=SC2012 # the first path of a glob
	ls "$dir"/*/scripts/checkpatch.pl 2>/dev/null | head -n 1
}

# shellcheck disable=SC2010 # our source file names: no odd characters
files=$(ls ./*.c ./*.h 2>/dev/null | grep -v '\.mod\.c$')
if [ -z "$files" ]; then
	echo "style: no *.c / *.h files"
	exit 1
fi

if cp=$(find_checkpatch) && [ -n "$cp" ]; then
	# shellcheck disable=SC2086
	if perl "$cp" --no-tree --strict --terse --show-types -f $files; then
		echo "style: checkpatch: clean"
	else
		echo "style: checkpatch: FAILED"
		rc=1
	fi
else
	echo "style: checkpatch.pl not found (install linux-source-6.12): skipped"
fi

kv=$(for b in /lib/modules/*/build; do [ -d "$b" ] &&
	basename "$(dirname "$b")"; done | sort -V | tail -n 1)
if ! command -v sparse >/dev/null 2>&1; then
	echo "style: sparse not installed: skipped"
elif [ -z "$kv" ]; then
	echo "style: no kernel headers: sparse skipped"
else
	dir=$REPO/build/sparse-$kv
	rm -rf "$dir"
	mkdir -p "$dir"
	# shellcheck disable=SC2086 # a list of file names
	cp Kbuild $files "$dir"/
	cp -r include "$dir"/
	make -C "/lib/modules/$kv/build" M="$dir" C=2 modules >"$dir/sparse.log" 2>&1
	st=$?
	out=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$dir/sparse.log")
	if [ "$st" -ne 0 ] || [ -n "$out" ]; then
		echo "style: sparse ($kv): FAILED"
		# shellcheck disable=SC2015 # the || branch is meant for a failure of either
		[ -n "$out" ] && echo "$out" || tail -n 20 "$dir/sparse.log"
		rc=1
	else
		echo "style: sparse ($kv): clean"
	fi
fi
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lint gates (make style; tests/host/lint.sh runs each as a subtest of
# make check):
#   - checkpatch: checkpatch.pl --no-tree --strict -f (.checkpatch.conf) on
#		every *.c / *.h of the module, its probes/*.c, tests/kmod/*.c,
#		bench/floor/*.c and
#		include/uapi/linux/*.h;
#		checkpatch from $CHECKPATCH, PATH, an unpacked linux-source
#		tree, or scripts/ extracted once from
#		/usr/src/linux-source-*.tar.xz (setup.sh installs 6.12's)
#   - shell scripts: shellcheck -x on every one of the tree (*.sh and
#		files whose first line runs sh or bash)
#   - versions: no LINUX_VERSION_CODE, KERNEL_VERSION() or
#		<linux/version.h> in the module's C sources (*.c, *.h of
#		., ipoption/, probes/): what differs between kernels is
#		decided by the probes (probes/, pktgen_compat.h), never by
#		a version number (issue 45: RHEL's 5.14 carries 6.x
#		interfaces)
#   - sparse:KV: sparse (C=2) against kernel KV, for each kernel make
#		modules-all builds (tests/lib/build-all.sh --sparse; built
#		there first, which is quick after make modules-all)
# style.sh [CHECK...]: those checks (none: all of them); style.sh list:
# their names.  Exit 0 clean, 1 on any finding, 4 when a check could not
# run for a missing tool (and none failed).
set -u

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1

find_checkpatch() {
	local c tarball dir
	for c in "${CHECKPATCH:-}" "$(command -v checkpatch.pl)" \
		/usr/src/linux-source-*/scripts/checkpatch.pl \
		"$REPO"/build/checkpatch/*/scripts/checkpatch.pl; do
		[ -n "$c" ] && [ -f "$c" ] && { echo "$c"; return 0; }
	done
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.*' 2>/dev/null |
		sort -V | tail -n 1)
	[ -n "$tarball" ] || return 1
	dir=$REPO/build/checkpatch
	mkdir -p "$dir"
	echo "style: extracting checkpatch from $tarball (once)" >&2
	tar -xf "$tarball" -C "$dir" --wildcards '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' || return 1
	find "$dir" -path '*/scripts/checkpatch.pl' | head -n 1
}

# the tree's files: git's list in a checkout, else every file but build/
tree_files() {
	if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$REPO" ]; then
		git ls-files
	else
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print |
			sed 's|^\./||'
	fi
}

shell_scripts() {
	local f
	tree_files | sort | while read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh) echo "$f" ;;
		*) head -n 1 "$f" 2>/dev/null |
			grep -qE '^#!.*[/ ](ba|da|k)?sh([[:space:]]|$)' && echo "$f" ;;
		esac
	done
}

check_checkpatch() {
	local cp files=()
	for f in ./*.c ./*.h ./ipoption/*.c ./ipoption/*.h ./probes/*.c ./tests/kmod/*.c ./bench/floor/*.c include/uapi/linux/*.h; do
		[ -e "$f" ] && [[ $f != *.mod.c ]] && files+=("$f")
	done
	if ! cp=$(find_checkpatch) || [ -z "$cp" ]; then
		echo "checkpatch: checkpatch.pl not found (linux-source-6.12): skipped"
		return 4
	fi
	if perl "$cp" --no-tree --strict --terse --show-types -f "${files[@]}"; then
		echo "checkpatch: clean (${#files[@]} files)"
	else
		echo "checkpatch: FAILED"
		return 1
	fi
}

check_shellcheck() {
	local files out
	if ! command -v shellcheck >/dev/null; then
		echo "shellcheck: not installed: skipped"
		return 4
	fi
	mapfile -t files < <(shell_scripts)
	# -x: follow what a script sources, as far as shellcheck finds it
	if out=$(shellcheck -x -f gcc "${files[@]}" 2>&1); then
		echo "shellcheck: clean (${#files[@]} scripts)"
		return 0
	fi
	echo "$out"
	echo "shellcheck: FAILED ($(grep -c ': \(error\|warning\|note\|style\):' <<<"$out")" \
		"findings in $(cut -d: -f1 <<<"$out" | sort -u | wc -l) of ${#files[@]} scripts)"
	return 1
}

check_versions() {
	local files=() f out
	for f in ./*.c ./*.h ./ipoption/*.c ./ipoption/*.h ./probes/*.c; do
		[ -e "$f" ] && [[ $f != *.mod.c ]] && files+=("$f")
	done
	if out=$(grep -n -E 'LINUX_VERSION_CODE|KERNEL_VERSION|LINUX_VERSION_(MAJOR|PATCHLEVEL|SUBLEVEL)|linux/version\.h' \
		"${files[@]}"); then
		echo "$out"
		echo "versions: FAILED (a version-number conditional: decide it by a probe in probes/)"
		return 1
	fi
	echo "versions: clean (${#files[@]} files, no version-number conditional)"
}

check_sparse() {	# KV
	if [ "$1" = none ]; then
		echo "sparse: no kernel headers (/lib/modules/*/build): skipped"
		return 4
	fi
	KERNELS=$1 tests/lib/build-all.sh --sparse
}

list() {
	local kv n=0
	echo checkpatch
	echo shellcheck
	echo versions
	while read -r kv _; do
		echo "sparse:$kv"
		n=$((n + 1))
	done < <(tests/lib/build-all.sh --list)
	[ "$n" -gt 0 ] || echo sparse:none
}

[ "${1:-}" = list ] && { list; exit 0; }
[ $# -gt 0 ] || mapfile -t checks < <(list)
[ $# -eq 0 ] || checks=("$@")
rc=0 skipped=0
for c in "${checks[@]}"; do
	case $c in
	checkpatch) check_checkpatch ;;
	shellcheck) check_shellcheck ;;
	versions) check_versions ;;
	sparse:?*) check_sparse "${c#sparse:}" ;;
	*) echo "style: no check $c (style.sh list)"; false ;;
	esac
	case $? in
	0) ;;
	4) skipped=$((skipped + 1)) ;;
	*) rc=1 ;;
	esac
done
[ "$rc" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 4
exit "$rc"

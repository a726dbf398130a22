# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by build-all.sh and mutants.sh: kmake, a module build against a
# kernel's headers on the host or in a kernels.sh cache root.

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
	# the host's sparse at /pktgen-sparse: one sparse for every kernel
	# whose root runs it (bullseye's libc is too old for it: that root
	# has its own, build-all.sh's sparse_check takes it there)
	: >>"$root/pktgen-sparse" || return 1
	# shellcheck disable=SC2016
	nice unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind "$1" "$2/pktgen-build" &&
		{ [ -z "$3" ] || mount --bind "$3" "$2/pktgen-sparse"; } &&
		mount -t proc proc "$2/proc" &&
		shift 3 && exec chroot "$0" make "$@"' \
		"$root" "$dir" "$root" "$(command -v sparse)" \
		-C "/lib/modules/$kv/build" M=/pktgen-build "$@"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (as root), started by vm.sh:
#	guest.sh check|run|mutants|figures KV OUT [VAR=value...]
# VAR=value arguments (TESTS, TEST_TIMEOUT, PKTGEN_MODULE, ...) are
# exported first: vng does not pass the host environment through.
set -u

mode=$1 KV=$2 OUT=$3
shift 3
for kv in "$@"; do
	export "${kv?}"
done
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export KV OUT PKTGEN_KO="$REPO/build/$KV/pktgen.ko"
export IPOPTION_KO="$REPO/build/$KV/ipoption/pf_ipoption.ko"
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# A kernel booted from its build tree (make debug-kernel; vm.sh passes
# PG_KTREE): virtme-ng's /lib/modules/KV is a symlink to itself here, so
# modprobe finds nothing, not even the stock pktgen.ko the differential
# tests compare with.  Lay it out again on the guest's tmpfs from the tree.
modules_from_tree() {
	local tree=$1 dir=/lib/modules/$KV m
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	ln -s "$tree" "$dir/build"
	cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$dir/" || return 1
	while read -r m; do
		m=${m%.o}.ko
		mkdir -p "$dir/kernel/${m%/*}" && ln -s "$tree/$m" "$dir/kernel/$m" || return 1
		echo "kernel/$m" >>"$dir/modules.order"
	done <"$tree/modules.order"
	depmod "$KV"
}
# A kernel from tests/lib/kernels.sh's cache (vm.sh passes PG_KMODS): its
# module tree, unpacked and depmod'ed there, is bound over the guest's
# /lib/modules/KV (on a tmpfs of the guest's: the host's is untouched).
if [ -n "${PG_KMODS:-}" ] && ! [ -d "/lib/modules/$KV/kernel" ]; then
	{ mkdir -p "/lib/modules/$KV" 2>/dev/null ||
		{ mount -t tmpfs -o mode=755 none /lib/modules && mkdir "/lib/modules/$KV"; }; } &&
		mount --bind "$PG_KMODS" "/lib/modules/$KV" ||
		echo "# guest: /lib/modules/$KV from $PG_KMODS failed" >&2
fi
if [ -n "${PG_KTREE:-}" ] && ! [ -d "/lib/modules/$KV/kernel" ]; then
	modules_from_tree "$PG_KTREE" ||
		echo "# guest: /lib/modules/$KV from $PG_KTREE failed" >&2
fi
echo "# guest: $(uname -r), $(nproc) cpus, module: ${PKTGEN_MODULE:-ours}" \
	"(${PKTGEN_KO})"

case $mode in
check) exec "$REPO/tests/lib/run.sh" ;;
run) exec "$REPO/tests/lib/demo.sh" ;;
mutants) exec "$REPO/tests/lib/mutants-guest.sh" ;;
figures) exec "$REPO/tests/lib/figures.sh" ;;
*) echo "guest.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac

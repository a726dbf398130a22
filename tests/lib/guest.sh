#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (as root), started by vm.sh:
#	guest.sh check|run KV OUT [VAR=value...]
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
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
echo "# guest: $(uname -r), $(nproc) cpus, module: ${PKTGEN_MODULE:-ours}" \
	"(${PKTGEN_KO})"

case $mode in
check) exec "$REPO/tests/lib/run.sh" ;;
run) exec "$REPO/tests/lib/demo.sh" ;;
*) echo "guest.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac

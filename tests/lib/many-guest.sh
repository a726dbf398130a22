#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside each guest of tests/lib/guests.sh (as root, the VM's command):
#	many-guest.sh DIR KV [KMODS]
# DIR is the guest's --rwdir, where the host wrote:
#   net		"ctl MAC ADDR/LEN" and "link MAC IFNAME ADDR/LEN" lines: each
#		NIC found by its MAC, renamed (ctl0, IFNAME), addressed, up,
#		IPv6 off (no ND/MLD frames on the links);
#   sshd_config, hostkey, authorized_keys, pam-sshd	for the guest's sshd
#		(pam-sshd bound over /etc/pam.d/sshd: guests.sh says why);
# KMODS: a cached kernel's module tree, bound over /lib/modules/KV (as
# guest.sh does), so modprobe finds sch_netem and the like.
# Then: insmod build/KV/pktgen.ko (this tree's), sshd, DIR/ready; the guest
# stays up until the host creates DIR/stop (or its VM's timeout).
# Everything it says goes to DIR/guest.log too.
set -u

DIR=$1 KV=$2 KMODS=${3:-}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
exec > >(tee -a "$DIR/guest.log") 2>&1

fail() {
	echo "# many-guest: $*"
	: >"$DIR/failed"
	exit 1
}

bind_kmods() {
	if ! mkdir -p "/lib/modules/$KV" 2>/dev/null; then
		mount -t tmpfs -o mode=755 none /lib/modules && mkdir "/lib/modules/$KV" ||
			return 1
	fi
	mount --bind "$KMODS" "/lib/modules/$KV"
}
if [ -n "$KMODS" ] && ! [ -d "/lib/modules/$KV/kernel" ]; then
	bind_kmods || fail "/lib/modules/$KV from $KMODS failed"
fi

# IPv6 off everywhere before any link is up
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	fail "sysctl disable_ipv6 failed"

# the interface with MAC
ifname_of() {
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$1" ] && { basename "$(dirname "$f")"; return 0; }
	done
	return 1
}

# two passes: every NIC to a temporary name first (a wanted name may be
# another NIC's name now), then to its own
ip link set lo up || fail "lo up failed"
n=0
while read -r kind mac name addr; do
	[ "$kind" = ctl ] && { addr=$name name=ctl0; }
	dev=$(ifname_of "$mac") || fail "no NIC with MAC $mac: $(ip -br link)"
	if ! ip link set dev "$dev" down || ! ip link set dev "$dev" name "pgmh$n"; then
		fail "renaming $dev failed"
	fi
	n=$((n + 1))
done <"$DIR/net"
n=0
while read -r kind mac name addr; do
	[ "$kind" = ctl ] && { addr=$name name=ctl0; }
	if ! ip link set dev "pgmh$n" name "$name" || ! ip addr add "$addr" dev "$name" ||
	   ! ip link set dev "$name" up; then
		fail "$name ($mac, $addr) failed"
	fi
	n=$((n + 1))
done <"$DIR/net"

ko=$REPO/build/$KV/pktgen.ko
insmod "$ko" || fail "insmod $ko failed"
[ -e /proc/net/pktgen/pgstats ] || fail "$ko loaded, but no /proc/net/pktgen/pgstats"

{ mkdir -p /run/sshd && chmod 755 /run/sshd; } || fail "/run/sshd"
# the host's /etc/pam.d/sshd stays as it is: a bind in this guest only
mount --bind "$DIR/pam-sshd" /etc/pam.d/sshd || fail "binding $DIR/pam-sshd"
/usr/sbin/sshd -D -e -f "$DIR/sshd_config" 2>>"$DIR/sshd.log" &
sshd=$!

echo "# many-guest: $(uname -r), pktgen $(cat /sys/module/pktgen/version)," \
	"$(ip -br -4 addr | tr -s ' ' | tr '\n' ';')"
: >"$DIR/ready"

# wait for the host's stop file (or sshd's death); read -t pauses
# without a process
exec {pause}<> <(:)
while ! [ -e "$DIR/stop" ] && kill -0 "$sshd" 2>/dev/null; do
	read -rt 0.5 -u "$pause" _
done
kill "$sshd" 2>/dev/null
wait "$sshd" 2>/dev/null
rmmod pktgen 2>/dev/null
echo "# many-guest: stopping"
exit 0

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the pktgen_*.sh sample scripts (source it first, then
# parameters.sh).  Same function names and behaviour as the kernel's
# samples/pktgen/functions.sh, so scripts written for either run with
# both; written fresh for this project.
#
# Writes go to /proc/net/pktgen (the netns of the calling process: run a
# script under `ip netns exec NS` to drive that namespace's pktgen).
# Every command is one write(2) (bash's echo), and the Result is read back
# with shell builtins only: a sample spends its time in pktgen, not in
# forking grep (which matters on slow or emulated machines).

set -o errexit

PROC_DIR=/proc/net/pktgen

# ---------------------------------------------------------------- messages
err() {	# CODE MSG...: message to stderr, exit CODE
	local code=$1
	shift
	echo "ERROR: $*" >&2
	exit "$code"
}

warn() { echo "WARN: $*" >&2; }

info() {
	[ -n "${VERBOSE:-}" ] && echo "INFO: $*" >&2
	return 0
}

# ---------------------------------------------------------------- proc I/O
# _read_file FILE VAR: the whole file into VAR without forking.
_read_file() {
	local -n _rf_var=$2
	_rf_var=""
	IFS= read -r -d '' _rf_var <"$1" || true
}

# _result_of TEXT: print the Result part of a device/thread file text.
_result_of() {
	case $1 in
	"Result: "*) printf '%s\n' "$1" ;;
	*$'\n'"Result: "*) printf 'Result: %s\n' "${1#*$'\n'Result: }" ;;
	esac
}

# proc_cmd FILE CMD...: write "CMD..." (one line, one write) to
# $PROC_DIR/FILE.  A failed write ends the script (exit 5).  For thread
# and device files the Result is read back; if it does not start with
# "OK:" it is shown on stderr (not fatal, as upstream: the command may
# still have done something useful).
proc_cmd() {
	local file=$PROC_DIR/$1 text status=0
	shift
	[ -e "$file" ] || err 3 "proc file $file does not exist (dev added to thread?)"
	[ -w "$file" ] || err 4 "proc file $file not writable, not root?!"
	[ -n "${DEBUG:-}" ] && echo "cmd: $* > $file"
	# shellcheck disable=SC2320 # echo's status is the write's
	echo "$*" >"$file" || status=$?
	if [ "${file##*/}" != pgctrl ]; then
		_read_file "$file" text
		case $text in
		"Result: OK:"* | *$'\n'"Result: OK:"*) ;;
		*) _result_of "$text" >&2 ;;
		esac
	fi
	[ "$status" -eq 0 ] ||
		err 5 "Write error($status) occurred cmd: \"$* > $file\""
}

pg_ctrl() { proc_cmd pgctrl "$@"; }		# CMD: pgctrl
pg_thread() {					# N CMD...: kpktgend_N
	local thread=$1
	shift
	proc_cmd "kpktgend_$thread" "$@"
}
pg_set() {					# DEV CMD...: device file
	local dev=$1
	shift
	proc_cmd "$dev" "$@"
}

# pgset CMD: the classic helper of the pktgen.conf-* scripts ($PGDEV is
# the full path of the file to write).
pgset() {
	local text
	echo "$1" >"$PGDEV" || true
	[ "${PGDEV##*/}" = pgctrl ] && return 0
	_read_file "$PGDEV" text
	case $text in
	"Result: OK:"* | *$'\n'"Result: OK:"*) ;;
	*) _result_of "$text" ;;
	esac
	return 0
}

# ---------------------------------------------------------------- results
# print_result DEV: the device's packet counter (and imix counts) and its
# Result (the two lines of statistics after a run).
print_result() {
	local text line n=0
	_read_file "$PROC_DIR/$1" text
	echo "Device: $1"
	while IFS= read -r line; do
		case $line in
		*pkts-sofar:* | *imix_size_counts:*) echo "${line#"${line%%[a-z]*}"}" ;;
		"Result: "*) n=3 ;;
		esac
		[ "$n" -gt 0 ] && { echo "$line"; n=$((n - 1)); }
	done <<<"$text"
	return 0
}

# ---------------------------------------------------------------- exit trap
# trap_exit: unless in append mode, reset pktgen when the script ends (so
# an interrupted or finished run leaves no device behind); root only.
_on_exit() {
	[ -e "$PROC_DIR/pgctrl" ] && echo reset >"$PROC_DIR/pgctrl" 2>/dev/null
	return 0
}

trap_exit() {
	[ -n "${APPEND:-}" ] && return 0
	[ "$EUID" -eq 0 ] || return 0
	trap _on_exit EXIT
}

# root_check_run_with_sudo ARGS...: re-run the calling script with sudo -E
# when not root.
root_check_run_with_sudo() {
	[ "$EUID" -eq 0 ] && return 0
	[ -x "$0" ] || err 4 "cannot re-run $0 with sudo (not executable)"
	info "not root, running with sudo"
	exec sudo -E "$0" "$@"
}

# ---------------------------------------------------------------- topology
get_iface_node() {	# DEV: its NUMA node (0 when unknown)
	local node=-1
	[ -r "/sys/class/net/$1/device/numa_node" ] &&
		read -r node <"/sys/class/net/$1/device/numa_node"
	[ "$node" -lt 0 ] && node=0
	echo "$node"
}

get_iface_irqs() {	# DEV: the IRQ numbers serving DEV
	local dev=$1 irqs line vdev
	# virtio_net: one vector per queue and direction, named after the
	# virtio device (virtioN-input.Q, virtioN-output.Q): the TX ones, in
	# queue order
	vdev=$(readlink -f "/sys/class/net/$dev/device" 2>/dev/null) || vdev=""
	vdev=${vdev##*/}
	if [[ $vdev == virtio[0-9]* ]]; then
		irqs=$(awk -v d="$vdev" '$NF ~ "^"d"-output\\.[0-9]+$" {
			q = $NF; sub(/.*\./, "", q); sub(/:/, "", $1); print q, $1 }' \
			/proc/interrupts | sort -n | cut -d' ' -f2)
		[ -n "$irqs" ] || err 3 "could not find the IRQs of $dev ($vdev)"
		# shellcheck disable=SC2086 # one line of the IRQ numbers
		echo $irqs
		return 0
	fi
	irqs=$(awk -F: -v d="$dev" '$0 ~ d"-.*TxRx" { gsub(/ /, "", $1); print $1 }' \
		/proc/interrupts)
	[ -z "$irqs" ] && irqs=$(awk -F: -v d="$dev" '$0 ~ d"$" { gsub(/ /, "", $1); print $1 }' \
		/proc/interrupts)
	if [ -z "$irqs" ] && [ -d "/sys/class/net/$dev/device/msi_irqs" ]; then
		for line in "/sys/class/net/$dev/device/msi_irqs"/*; do
			irqs="$irqs ${line##*/}"
		done
	fi
	[ -n "$irqs" ] || err 3 "could not find the IRQs of $dev"
	# shellcheck disable=SC2086 # one line of the IRQ numbers
	echo $irqs
}

get_node_cpus() {	# NODE: the CPUs of NUMA node NODE, one per line
	local list r
	read -r list <"/sys/devices/system/node/node$1/cpulist"
	for r in ${list//,/ }; do
		seq "${r%-*}" "${r#*-}"
	done
}

# ---------------------------------------------------------------- addresses
in_between() {	# VAL MIN MAX: true if MIN <= VAL <= MAX
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

_ip4_to_int() {	# A.B.C.D: as one integer
	local IFS=. a b c d
	read -r a b c d <<<"$1"
	echo $(((a << 24) | (b << 16) | (c << 8) | d))
}

_int_to_ip4() {
	echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"
}

# validate_addr A[/LEN]: an IPv4 address with an optional prefix length.
validate_addr() {
	local addr=${1%/*} len=32 IFS=. o
	[[ $1 == */* ]] && len=${1#*/}
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[[ $len =~ ^[0-9]+$ ]] && in_between "$len" 0 32 ||
		err 5 "invalid prefix length in $1"
	[[ $addr =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		err 5 "invalid IPv4 address $1"
	for o in $addr; do
		in_between "$((10#$o))" 0 255 || err 5 "invalid IPv4 address $1"
	done
}

# parse_addr A[/LEN]: print "MIN MAX" of the range (A A without /LEN).
parse_addr() {
	local addr=${1%/*} len=32 ip mask
	[[ $1 == */* ]] && len=${1#*/}
	ip=$(_ip4_to_int "$addr")
	mask=$(((0xffffffff << (32 - len)) & 0xffffffff))
	[ "$len" -eq 0 ] && mask=0
	echo "$(_int_to_ip4 $((ip & mask))) $(_int_to_ip4 $(((ip & mask) | (~mask & 0xffffffff))))"
}

# extend_addr6 A: the eight 16-bit groups of IPv6 address A, ":"-joined.
extend_addr6() {
	local a=$1 head tail n i out="" g
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
		n=0
		g=${head//[^:]/} && [ -n "$head" ] && n=$((n + ${#g} + 1))
		g=${tail//[^:]/} && [ -n "$tail" ] && n=$((n + ${#g} + 1))
		a=$head
		for ((i = n; i < 8; i++)); do
			a="$a:0"
		done
		a="${a#:}${tail:+:$tail}"
	fi
	local IFS=:
	for g in $a; do
		out="$out:$(printf '%x' "$((16#${g:-0}))")"
	done
	echo "${out#:}"
}

validate_addr6() {	# A[/LEN]
	local addr=${1%/*} len=128 g n=0
	[[ $1 == */* ]] && len=${1#*/}
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	[[ $len =~ ^[0-9]+$ ]] && in_between "$len" 0 128 ||
		err 5 "invalid IPv6 prefix length in $1"
	[[ $addr =~ ^[0-9a-fA-F:]+$ ]] || err 5 "invalid IPv6 address $1"
	# one "::" at most, and no ":::" (1::2::3 and fd00:::1 are not addresses)
	[[ $addr == *::*::* || $addr == *:::* ]] && err 5 "invalid IPv6 address $1"
	local IFS=:
	for g in $(extend_addr6 "$addr"); do
		[ ${#g} -le 4 ] || err 5 "invalid IPv6 address $1"
		n=$((n + 1))
	done
	[ "$n" -eq 8 ] || err 5 "invalid IPv6 address $1"
}

# parse_addr6 A[/LEN]: print "MIN MAX" (full, uncompressed groups).
parse_addr6() {
	local addr=${1%/*} len=128 g i=0 bits lo hi min="" max=""
	[[ $1 == */* ]] && len=${1#*/}
	local IFS=:
	for g in $(extend_addr6 "$addr"); do
		bits=$((len - 16 * i))
		[ "$bits" -lt 0 ] && bits=0
		[ "$bits" -gt 16 ] && bits=16
		lo=$((16#$g & ((0xffff << (16 - bits)) & 0xffff)))
		hi=$((lo | (0xffff >> bits)))
		min="$min:$(printf '%x' "$lo")" max="$max:$(printf '%x' "$hi")"
		i=$((i + 1))
	done
	echo "${min#:} ${max#:}"
}

# parse_ports P or P1-P2: print "MIN MAX".
parse_ports() {
	local min=${1%-*} max=${1#*-}
	echo "$min $max"
}

validate_ports() {	# MIN MAX
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || err 5 "invalid port range $1-$2"
	# shellcheck disable=SC2015 # the || branch is meant for a failure of either
	in_between "$1" 1 65535 && in_between "$2" 1 65535 ||
		err 5 "ports must be 1-65535: $1-$2"
	[ "$1" -le "$2" ] || err 5 "port range $1-$2: min above max"
}

# ---------------------------------------------------------------- samples
# What the pktgen_*.sh samples share: the destination, the reset of the
# threads they use, the device settings common to all, the run.

# default_dest IPV4 IPV6: DEST_IP, unless given, for the address family.
default_dest() {
	if [ -z "${DEST_IP:-}" ]; then
		DEST_IP=$1
		[ -n "$IP6" ] && DEST_IP=$2
	fi
	return 0
}

# setup_dest: DST_MIN/DST_MAX from DEST_IP (an address or a CIDR range),
# UDP_DST_MIN/UDP_DST_MAX from DST_PORT (a port or MIN-MAX).
setup_dest() {
	local range ports
	"validate_addr$IP6" "$DEST_IP"
	range=$("parse_addr$IP6" "$DEST_IP")
	DST_MIN=${range% *} DST_MAX=${range#* }
	if [ -n "${DST_PORT:-}" ]; then
		ports=$(parse_ports "$DST_PORT")
		UDP_DST_MIN=${ports% *} UDP_DST_MAX=${ports#* }
		validate_ports "$UDP_DST_MIN" "$UDP_DST_MAX"
	fi
}

# reset_threads: unless in append mode, reset pktgen and empty the
# threads F_THREAD..L_THREAD.
reset_threads() {
	local t
	[ -n "${APPEND:-}" ] && return 0
	pg_ctrl reset
	for ((t = F_THREAD; t <= L_THREAD; t++)); do
		pg_thread "$t" rem_device_all
	done
}

# base_config DEV: count, size, delay, addresses and ports of one device.
base_config() {
	local dev=$1
	pg_set "$dev" "count $COUNT"
	if [ -n "${CLONE_SKB:-}" ]; then
		pg_set "$dev" "clone_skb $CLONE_SKB"
	fi
	pg_set "$dev" "pkt_size $PKT_SIZE"
	pg_set "$dev" "delay $DELAY"
	pg_set "$dev" "flag NO_TIMESTAMP"
	if [ -n "${DST_MAC:-}" ]; then
		pg_set "$dev" "dst_mac $DST_MAC"
	fi
	pg_set "$dev" "dst${IP6}_min $DST_MIN"
	pg_set "$dev" "dst${IP6}_max $DST_MAX"
	if [ -n "${DST_PORT:-}" ]; then
		pg_set "$dev" "flag UDPDST_RND"
		pg_set "$dev" "udp_dst_min $UDP_DST_MIN"
		pg_set "$dev" "udp_dst_max $UDP_DST_MAX"
	fi
	if [ -n "${UDP_CSUM:-}" ]; then
		pg_set "$dev" "flag UDPCSUM"
	fi
}

# udp_src_range DEV: random UDP source port in 9-109 (spreads the
# packets over the receiver's RX queues).
udp_src_range() {
	pg_set "$1" "flag UDPSRC_RND"
	pg_set "$1" "udp_src_min 9"
	pg_set "$1" "udp_src_max 109"
}

# run_devs DEV...: start the run (blocks; Ctrl-C stops it), then print the
# result of each device.  In append mode only say that the config is done.
run_devs() {
	local dev
	trap true SIGINT
	if [ -n "${APPEND:-}" ]; then
		echo "Append mode: config done. Do more or use 'pg_ctrl start' to run"
		return 0
	fi
	echo "Running... ctrl^C to stop" >&2
	pg_ctrl start
	echo "Done" >&2
	for dev in "$@"; do
		print_result "$dev"
	done
}

# sample_run: what the multi-thread samples do once their defaults are
# set and config_dev DEV THREAD (their own function) is defined: the
# destination (198.18.0.42 or FD00::1 unless -d), the reset, "$DEV@N" on
# each thread N, config_dev for each, the run and its results.
sample_run() {
	local t devs=()
	default_dest 198.18.0.42 FD00::1
	: "${DST_MAC:=90:e2:ba:ff:ff:ff}"	# nobody's MAC: the packets die at the receiver
	setup_dest
	reset_threads
	for ((t = F_THREAD; t <= L_THREAD; t++)); do
		devs+=("$DEV@$t")
		pg_thread "$t" "add_device $DEV@$t"
		config_dev "$DEV@$t" "$t"
	done
	run_devs "${devs[@]}"
}

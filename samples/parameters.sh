# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Command line of the pktgen_*.sh samples (sourced after functions.sh).
# The options are those of the kernel's samples/pktgen/parameters.sh;
# every variable can also be set in the environment beforehand.  Not root:
# the script is run again with sudo.  At the end the EXIT trap that resets
# pktgen is installed (not in append mode).

root_check_run_with_sudo "$@"

usage() {
	cat <<EOF
Usage: $0 -i ethX [options]
  -i : (\$DEV)       output interface/device (required)
  -s : (\$PKT_SIZE)  packet size in bytes, without the 4-byte FCS (default 60)
  -d : (\$DEST_IP)   destination IP; CIDR (198.18.0.0/15) for a range
  -m : (\$DST_MAC)   destination MAC address
  -p : (\$DST_PORT)  destination UDP port, or a range PORT_MIN-PORT_MAX
  -k : (\$UDP_CSUM)  fill in the UDP checksum (flag UDPCSUM)
  -t : (\$THREADS)   threads to start (default 1)
  -f : (\$F_THREAD)  first thread, i.e. its CPU number (default 0)
  -c : (\$CLONE_SKB) send each built packet this many times (clone_skb)
  -n : (\$COUNT)     packets to send per thread, 0 = until stopped
  -b : (\$BURST)     packets handed to the driver per transmit (burst)
  -w : (\$DELAY)     delay between transmits in nanoseconds
  -v : (\$VERBOSE)   verbose
  -x : (\$DEBUG)     debug: print every command written
  -6 : (\$IP6)       IPv6
  -a : (\$APPEND)    append mode: configure only, neither reset nor start
  -h : this help
EOF
	exit 2
}

# shellcheck disable=SC2034 # VERBOSE, DEBUG, APPEND, UDP_CSUM: for the scripts that source this
while getopts "s:i:d:m:p:f:t:c:n:b:w:vxh6ak" option; do
	case $option in
	i) DEV=$OPTARG ;;
	s) PKT_SIZE=$OPTARG; info "packet size $PKT_SIZE" ;;
	d) DEST_IP=$OPTARG; info "destination IP $DEST_IP" ;;
	m) DST_MAC=$OPTARG; info "destination MAC $DST_MAC" ;;
	p) DST_PORT=$OPTARG; info "destination port $DST_PORT" ;;
	f) F_THREAD=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	c) CLONE_SKB=$OPTARG; info "clone_skb $CLONE_SKB" ;;
	n) COUNT=$OPTARG; info "count $COUNT" ;;
	b) BURST=$OPTARG; info "burst $BURST" ;;
	w) DELAY=$OPTARG; info "delay $DELAY" ;;
	v) VERBOSE=yes; info "verbose" ;;
	x) DEBUG=yes; info "debug" ;;
	6) IP6=6; info "IPv6" ;;
	a) APPEND=yes; info "append mode" ;;
	k) UDP_CSUM=yes; info "UDP checksum" ;;
	h | *) usage ;;
	esac
done
shift $((OPTIND - 1))

[ -n "${DEV:-}" ] || usage

: "${PKT_SIZE:=60}"	# the NIC adds the 4-byte FCS
: "${THREADS:=1}"
: "${F_THREAD:=0}"
: "${DELAY:=0}"
: "${IP6:=}"
# shellcheck disable=SC2034 # for the scripts that source this
L_THREAD=$((THREADS + F_THREAD - 1))

[ -n "${DST_MAC:-}" ] || warn "missing destination MAC address (-m)"
[ -n "${DEST_IP:-}" ] || warn "missing destination IP address (-d)"

if [ ! -d "$PROC_DIR" ]; then
	info "loading the pktgen module"
	modprobe pktgen || err 1 "cannot load the pktgen module"
	[ -d "$PROC_DIR" ] || err 1 "$PROC_DIR missing after modprobe pktgen"
fi

trap_exit

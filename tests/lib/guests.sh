# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host side: N virtme-ng guests of one kernel at once, wired to each
# other, each reachable over SSH from the host (tests/many-hosts.sh).
# Sourced after tests/lib/lib.sh (defer, slowwait, pid_gone):
#
#	guests_init DIR KV	a run's state in DIR (made; the caller removes it)
#	guest_add NAME		guest 1, 2, ... (in this order)
#	guest_link A B		a point-to-point link between guests A and B
#	guests_boot		boot them all in the background; defers the stop
#	guests_wait SECS	every guest's sshd answers (fails early when a
#				guest's VM exits)
#	guest_ssh NAME CMD...	run CMD in the guest as root
#	guests_stop		ask every guest to stop, wait, kill the rest
#
# Each guest: `--cpus 1` (GUEST_CPUS), 1 GiB (GUEST_MEMORY), TCG, the
# host's root over 9p read-only and its own directory DIR/NAME as a
# --rwdir, running tests/lib/many-guest.sh.  NICs (virtio-net-pci, PCI
# order as added):
#   control: QEMU user net, restrict=on (the guest reaches nothing), a
#	hostfwd 127.0.0.1:PORT -> guest:22 for the guest's own sshd;
#	MAC 52:54:00:46:00:GG (GG the guest's number, hex);
#   each link: a QEMU UDP socket netdev on 127.0.0.1 whose peer is the
#	other guest's end (no listen/connect order: both ends just send);
#	MAC 52:54:00:46:LL:GG (LL the link's number), named ethK in the
#	guest (K counting that guest's links from 1), address
#	10.46.LL.GG/24 (decimal).
# Ports: PORT_BASE = 20000 + (PID % 1000) x 20 (two runs at once do not
# collide): SSH of guest G at PORT_BASE + G, link L's ends at PORT_BASE
# + 8 + 2L and + 9 + 2L (at most 7 guests and 5 links).
# SSH: a key pair and a host key per guest, made here for this run; the
# host's known_hosts for them (StrictHostKeyChecking yes) and an
# ssh_config (DIR/ssh_config, Host NAME) that guest_ssh and the caller use.
# Every VM runs in a session of its own under `timeout` (GUEST_TIMEOUT s,
# 1800): guests_stop kills what is left by its process group, at the
# test's exit too (defer), and a VM whose host script was killed -9 still
# ends at its timeout.

GUESTS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GUESTS_DIR="" GUESTS_KV="" GUEST_NAMES=() GUEST_LINKS=() GUEST_PIDS=()
GUESTS_STOPPED=0

# the vng tests/lib/setup.sh chose, as vm.sh finds it
_guests_vng() {
	local v=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/bin/vng
	[ -x "$v" ] || v=$(command -v vng || ls "${PYENV_ROOT:-$HOME/.pyenv}/shims/vng" 2>/dev/null)
	[ -n "$v" ] && echo "$v"
}

# the kernel image of KV, as vm.sh's kimage(), in GUESTS_IMG; the
# modules of a cached kernel in GUESTS_KMODS
_guests_kimage() {
	local kc=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/kernels
	local img=/lib/modules/$1/build/arch/x86/boot/bzImage
	GUESTS_KMODS=""
	if [ -e "/boot/vmlinuz-$1" ]; then
		img=/boot/vmlinuz-$1
	elif [ -e "$kc/$1/vmlinuz" ]; then
		img=$kc/$1/vmlinuz GUESTS_KMODS=$kc/$1/lib/modules/$1
	fi
	GUESTS_IMG=$img
}

guests_init() {	# DIR KV
	GUESTS_DIR=$1 GUESTS_KV=$2 GUEST_NAMES=() GUEST_LINKS=() GUEST_PIDS=()
	GUESTS_STOPPED=0
	PORT_BASE=$((20000 + $$ % 1000 * 20))
	mkdir -p "$GUESTS_DIR" && chmod 755 "$GUESTS_DIR"
}

_guest_index() {	# NAME: its number (1...)
	local i
	for i in "${!GUEST_NAMES[@]}"; do
		[ "${GUEST_NAMES[i]}" = "$1" ] && { echo $((i + 1)); return 0; }
	done
	echo "guests.sh: no guest $1" >&2
	return 1
}

guest_add() {	# NAME
	GUEST_NAMES+=("$1")
	[ ${#GUEST_NAMES[@]} -le 7 ] || { echo "guests.sh: at most 7 guests" >&2; return 1; }
	mkdir -p "$GUESTS_DIR/$1" && chmod 755 "$GUESTS_DIR/$1" &&
		: >"$GUESTS_DIR/$1/net" &&
		echo "ctl $(guest_mac 0 "$(_guest_index "$1")") 10.0.2.15/24" >>"$GUESTS_DIR/$1/net"
}

guest_mac() {	# LINK GUEST (numbers): the MAC of that NIC
	printf '52:54:00:46:%02x:%02x\n' "$1" "$2"
}
guest_port() {	# NAME: its SSH port on the host's loopback
	local g
	g=$(_guest_index "$1") || return 1
	echo $((PORT_BASE + g))
}

# guest_link A B: link L (1, 2, ...) between them; prints nothing.  The
# link's interface in each guest: guest_ifname NAME L.
guest_link() {	# A B
	local l a b k g
	GUEST_LINKS+=("$1 $2")
	l=${#GUEST_LINKS[@]}
	[ "$l" -le 5 ] || { echo "guests.sh: at most 5 links" >&2; return 1; }
	a=$(_guest_index "$1") && b=$(_guest_index "$2") || return 1
	for g in "$1:$a" "$2:$b"; do
		k=$(($(wc -l <"$GUESTS_DIR/${g%%:*}/net")))
		echo "link $(guest_mac "$l" "${g#*:}") eth$k 10.46.$l.${g#*:}/24" \
			>>"$GUESTS_DIR/${g%%:*}/net"
	done
}
guest_ifname() {	# NAME LINK: the interface of link LINK in guest NAME
	local mac
	mac=$(guest_mac "$2" "$(_guest_index "$1")")
	awk -v m="$mac" '$1 == "link" && $2 == m { print $3 }' "$GUESTS_DIR/$1/net"
}
guest_addr() {	# NAME LINK: its IPv4 address on that link
	echo "10.46.$2.$(_guest_index "$1")"
}

# the QEMU options of guest G (number)
_guest_qemu_opts() {	# G
	local g=$1 o l a b p q
	o="-netdev user,id=ctl,restrict=on,hostfwd=tcp:127.0.0.1:$((PORT_BASE + g))-:22"
	o+=" -device virtio-net-pci,netdev=ctl,mac=$(guest_mac 0 "$g")"
	for l in "${!GUEST_LINKS[@]}"; do
		a=$(_guest_index "${GUEST_LINKS[l]% *}") b=$(_guest_index "${GUEST_LINKS[l]#* }")
		p=$((PORT_BASE + 10 + 2 * l)) q=$((p + 1))	# a's end, b's end
		if [ "$g" = "$a" ]; then
			:
		elif [ "$g" = "$b" ]; then
			local t=$p
			p=$q q=$t
		else
			continue
		fi
		o+=" -netdev socket,id=l$((l + 1)),udp=127.0.0.1:$q,localaddr=127.0.0.1:$p"
		o+=" -device virtio-net-pci,netdev=l$((l + 1)),mac=$(guest_mac $((l + 1)) "$g")"
	done
	echo "$o"
}

# ports of ours already taken on the host (another program, a run whose
# guests linger): refuse rather than wire into them
_guests_ports_free() {
	local p busy
	busy=$(ss -Htaun 2>/dev/null | awk '{ print $5 }')
	for ((p = PORT_BASE + 1; p < PORT_BASE + 20; p++)); do
		if grep -qx "127.0.0.1:$p\|0.0.0.0:$p\|\*:$p\|\[::\]:$p" <<<"$busy"; then
			echo "guests.sh: port $p is in use on the host" >&2
			return 1
		fi
	done
}

# keys, sshd_config, known_hosts and ssh_config
_guests_ssh_setup() {
	local d=$GUESTS_DIR n
	ssh-keygen -q -t ed25519 -N '' -C "pktgen-many-hosts-$$" -f "$d/id" || return 1
	: >"$d/known_hosts"
	: >"$d/ssh_config"
	for n in "${GUEST_NAMES[@]}"; do
		ssh-keygen -q -t ed25519 -N '' -C "$n" -f "$d/$n/hostkey" || return 1
		cp "$d/id.pub" "$d/$n/authorized_keys" || return 1
		cat >"$d/$n/sshd_config" <<-EOF
		# tests/lib/guests.sh: the sshd of guest $n (this run only)
		ListenAddress 0.0.0.0:22
		HostKey $d/$n/hostkey
		AuthorizedKeysFile $d/$n/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM yes
		StrictModes no
		UseDNS no
		PidFile none
		LogLevel ERROR
		Subsystem sftp internal-sftp
		EOF
		# root's password is locked on a Debian host ("!"), and sshd
		# without PAM refuses a locked account even for a key: PAM with
		# this stack, bound over the guest's /etc/pam.d/sshd (in the
		# guest's mounts only) by many-guest.sh
		printf '%s\n' 'auth required pam_deny.so' 'account required pam_permit.so' \
			'password required pam_deny.so' 'session required pam_permit.so' \
			>"$d/$n/pam-sshd"
		echo "[127.0.0.1]:$(guest_port "$n") $(cut -d' ' -f1,2 "$d/$n/hostkey.pub")" \
			>>"$d/known_hosts"
		cat >>"$d/ssh_config" <<-EOF
		Host $n
		  HostName 127.0.0.1
		  Port $(guest_port "$n")
		  User root
		  IdentityFile $d/id
		  IdentitiesOnly yes
		  UserKnownHostsFile $d/known_hosts
		  StrictHostKeyChecking yes
		  BatchMode yes
		  ConnectTimeout 20
		  ServerAliveInterval 10
		  ControlMaster auto
		  ControlPath $d/cm-%h-%p
		  ControlPersist 600
		EOF
	done
	# sshd refuses a config it cannot use: check them here, not in a VM
	# (sshd -t wants /run/sshd: a private /run for it, the host's left as
	# it is)
	# shellcheck disable=SC2016 # sh's $0
	for n in "${GUEST_NAMES[@]}"; do
		unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /run &&
			mkdir -m 755 /run/sshd && exec /usr/sbin/sshd -t -f "$0"' \
			"$d/$n/sshd_config" || { echo "guests.sh: sshd -t -f $d/$n/sshd_config failed"; return 1; }
	done
}

# guests_boot: every guest in the background (console to DIR/NAME/console.log)
guests_boot() {
	local vng img g n cmd append
	vng=$(_guests_vng) || { echo "guests.sh: vng not found (tests/lib/setup.sh)" >&2; return 1; }
	_guests_kimage "$GUESTS_KV"
	img=$GUESTS_IMG
	[ -e "$img" ] || { echo "guests.sh: no kernel image for $GUESTS_KV" >&2; return 1; }
	[ -e "$GUESTS_REPO/build/$GUESTS_KV/pktgen.ko" ] ||
		{ echo "guests.sh: no build/$GUESTS_KV/pktgen.ko (tests/lib/build-all.sh)" >&2; return 1; }
	_guests_ports_free && _guests_ssh_setup || return 1
	# as vm.sh: no ASLR for the guests' processes (TCG translates each
	# exec anew with it), no modules for devices nothing uses
	append="panic_on_warn=1 softlockup_panic=1 loglevel=4 norandmaps"
	append+=" modprobe.blacklist=kvm,kvm_amd,kvm_intel,ccp,ahci,sr_mod,sg,iTCO_wdt"
	append+=",intel_pmc_bxt,i6300esb,pcspkr,i2c_i801,lpc_ich,psmouse,serio_raw,evdev"
	append+=",button,qemu_fw_cfg"
	defer guests_stop
	for g in "${!GUEST_NAMES[@]}"; do
		n=${GUEST_NAMES[g]}
		cmd="bash $(printf '%q ' "$GUESTS_REPO/tests/lib/many-guest.sh" \
			"$GUESTS_DIR/$n" "$GUESTS_KV" "$GUESTS_KMODS")"
		# --qemu-opts=...: argparse takes a separate "-netdev ..." for an
		# option.  Its own session (setsid: a process group to kill, away from
		# the terminal's Ctrl-C, which the test's trap handles)
		setsid timeout -k 10 "${GUEST_TIMEOUT:-1800}" env PATH="$(dirname \
			"$(readlink -f "$vng")"):$PATH" "$vng" --run "$img" --disable-kvm \
			--force-9p --verbose --cpus "${GUEST_CPUS:-1}" --memory "${GUEST_MEMORY:-1G}" \
			--append "$append" --qemu-opts="$(_guest_qemu_opts $((g + 1)))" \
			--rwdir "$GUESTS_DIR/$n" --cwd "$GUESTS_REPO" -- "$cmd" \
			</dev/null >"$GUESTS_DIR/$n/console.log" 2>&1 &
		GUEST_PIDS+=("$!")
	done
}

# one guest ready: its ready file, and sshd answering through the hostfwd
_guest_up() {	# G (index from 0)
	local n=${GUEST_NAMES[$1]}
	if pid_gone "${GUEST_PIDS[$1]}"; then
		echo "guest $n: its VM exited before it was ready"
		return 2
	fi
	[ -e "$GUESTS_DIR/$n/ready" ] && guest_ssh "$n" true
}
_guests_all_up() {
	local g rc
	for g in "${!GUEST_NAMES[@]}"; do
		[ -e "$GUESTS_DIR/${GUEST_NAMES[g]}/up" ] && continue
		rc=0
		_guest_up "$g" || rc=$?
		[ "$rc" = 2 ] && { : >"$GUESTS_DIR/dead"; return 0; }
		[ "$rc" = 0 ] || return 1
		: >"$GUESTS_DIR/${GUEST_NAMES[g]}/up"
		echo "guest ${GUEST_NAMES[g]} up after $((SECONDS - GUESTS_T0)) s" \
			>>"$GUESTS_DIR/times"
	done
}
guests_wait() {	# SECS
	local n
	GUESTS_T0=${GUESTS_T0:-$SECONDS}
	rm -f "$GUESTS_DIR/dead"
	if ! slowwait "$1" _guests_all_up || [ -e "$GUESTS_DIR/dead" ]; then
		for n in "${GUEST_NAMES[@]}"; do
			[ -e "$GUESTS_DIR/$n/up" ] && continue
			echo "guest $n: not up (its console, $GUESTS_DIR/$n/console.log, ends:)"
			tail -n 25 "$GUESTS_DIR/$n/console.log" 2>/dev/null
		done
		return 1
	fi
}

guest_ssh() {	# NAME CMD...
	local n=$1
	shift
	ssh -F "$GUESTS_DIR/ssh_config" "$n" "$@"
}

# all VMs gone?
_guests_gone() {
	local p
	for p in "${GUEST_PIDS[@]}"; do
		pid_gone "$p" || return 1
	done
}
guests_stop() {
	local n p
	[ "$GUESTS_STOPPED" = 1 ] && return 0
	GUESTS_STOPPED=1
	for n in "${GUEST_NAMES[@]}"; do
		: >"$GUESTS_DIR/$n/stop" 2>/dev/null
		ssh -F "$GUESTS_DIR/ssh_config" -O exit "$n" >/dev/null 2>&1
	done
	slowwait "${GUEST_STOP_WAIT:-60}" _guests_gone
	for p in "${GUEST_PIDS[@]}"; do
		pid_gone "$p" || kill -TERM -- "-$p" 2>/dev/null
	done
	slowwait 10 _guests_gone
	for p in "${GUEST_PIDS[@]}"; do
		pid_gone "$p" || kill -KILL -- "-$p" 2>/dev/null
	done
	# reap them: no zombie, and QEMU's ports free for the next run
	for p in "${GUEST_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	return 0
}

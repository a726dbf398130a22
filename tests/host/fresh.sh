#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the README's starting point, proved.  For each Debian release
# in FRESH_RELEASES (default "bookworm trixie"; make check runs bookworm):
# a minimal root (debootstrap --variant=minbase, the release's standard
# suites REL, REL-updates, REL-security) made once and kept pristine in
# $PKTGEN_CACHE/fresh/REL/root (default ~/.cache/pktgen), copied to a
# throwaway root for every run.  There, as a new user would, as root:
# apt-get install git make, the checkout copied in, `make run`, its Result
# checked; then setup.sh once more, which must install nothing.  So every
# apt and pip step of setup.sh runs each time; only apt's downloaded .debs
# are kept ($PKTGEN_CACHE/fresh/REL/archives, bound into the root).
#
# The mirror is the host's: the first Debian URI of its apt sources (deb
# lines and deb822 .sources; FRESH_MIRROR and FRESH_SECURITY_MIRROR
# override), and so is apt's proxy setting.  pip's configuration is carried
# in: /etc/pip.conf and the user's pip.conf, the PIP_* and proxy variables,
# the files they name (a CA bundle) and the directories (find-links).
# Everything is mounted in a private mount namespace (chroot with /proc,
# /sys, /dev, /dev/pts bound) and unmounted before the root is removed.
# Prints KTAP and a closing "N passed, N failed, N skipped" line; exit 4
# (every subtest skipped) without root or debootstrap that apt can install.
#
#	tests/host/fresh.sh	(make check-fresh: Debian 12 and 13)

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

if [ -z "${FRESH_PRIVATE:-}" ] && [ "$(id -u)" -eq 0 ] &&
   unshare -m --propagation private true 2>/dev/null; then
	exec env FRESH_PRIVATE=1 unshare -m --propagation private "$0" "$@"
fi

RELEASES=${FRESH_RELEASES:-bookworm trixie}
CACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/fresh
PER=8			# subtests per release
INPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
T=$(lib_tmpdir)
ROOT="" MOUNTS=()

ktap_header
ktap_plan $((PER * $(wc -w <<<"$RELEASES")))


[ "$(id -u)" -eq 0 ] || ktap_skip_all "fresh root" "needs root"
[ -n "${FRESH_PRIVATE:-}" ] || ktap_skip_all "fresh root" "needs unshare -m"
if ! command -v debootstrap >/dev/null; then
	echo "# installing debootstrap on this host (apt-get install debootstrap)"
	apt-get install -y -q debootstrap >"$T/apt-debootstrap.log" 2>&1 ||
		{ apt-get update && apt-get install -y -q debootstrap; } \
			>>"$T/apt-debootstrap.log" 2>&1 ||
		ktap_skip_all "fresh root" "no debootstrap ($(tail -n 1 "$T/apt-debootstrap.log"))"
fi

# "URI SUITE" for every enabled deb source of the host's apt
apt_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) {	# [options]
				while (i <= NF && $i !~ /\]$/) i++
				i++
			}
			print $i, $(i + 1)
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			t = u = s = ""; en = "yes"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[ \t]*#/) continue
				k = tolower($i); sub(/:.*/, "", k)
				v = $i; sub(/^[^:]*:[ \t]*/, "", v)
				if (k == "types") t = v
				else if (k == "uris") u = v
				else if (k == "suites") s = v
				else if (k == "enabled") en = tolower(v)
			}
			if (t !~ /(^| )deb( |$)/ || en == "no") next
			nu = split(u, U, " "); ns = split(s, S, " ")
			for (a = 1; a <= nu; a++)
				for (b = 1; b <= ns; b++)
					print U[a], S[b]
		}' "$f"
	done
}
DEB_SUITE='^(buster|bullseye|bookworm|trixie|forky|sid|oldstable|stable|testing|unstable)'
MIRROR=${FRESH_MIRROR:-$(apt_uris | awk -v re="$DEB_SUITE(-updates)?\$" \
	'$2 ~ re { print $1; exit }')}
SECURITY=${FRESH_SECURITY_MIRROR:-$(apt_uris | awk -v re="$DEB_SUITE-security\$" \
	'$2 ~ re { print $1; exit }')}
MIRROR=${MIRROR%/}
SECURITY=${SECURITY%/}
case $MIRROR in
*/debian) [ -n "$SECURITY" ] || SECURITY=$MIRROR-security ;;
"") ktap_skip_all "fresh root" "no Debian mirror in the host's apt sources (FRESH_MIRROR=URL)" ;;
esac
echo "# mirror $MIRROR, security ${SECURITY:-none}, cache $CACHE"

# ---------------------------------------------------------------- the root
pristine() {	# REL: debootstrap once into $CACHE/REL/root
	local d=$CACHE/$1
	[ -f "$d/root/.pktgen-pristine" ] && { echo "cached"; return 0; }
	rm -rf "$d/root.tmp" "$d/root"
	mkdir -p "$d/debs"
	debootstrap --variant=minbase --cache-dir="$d/debs" "$1" "$d/root.tmp" \
		"$MIRROR" >"$T/$1-debootstrap.log" 2>&1 ||
		{ tail -n 20 "$T/$1-debootstrap.log"; return 1; }
	rm -f "$d/root.tmp"/var/cache/apt/archives/*.deb
	touch "$d/root.tmp/.pktgen-pristine" && mv "$d/root.tmp" "$d/root"
}

bind() {	# SRC DST [ro]: bind-mount, remembered for unmount_all
	mkdir -p "$2" || return 1
	mount --rbind "$1" "$2" || return 1
	[ "${3:-}" = ro ] && mount -o remount,bind,ro "$2"
	mount --make-rslave "$2"
	MOUNTS+=("$2")
}

# a file a pip setting names, copied into the root; prints its path there
carry_file() {
	local n
	n=/etc/pktgen-fresh/$(basename "$1")
	mkdir -p "$ROOT/etc/pktgen-fresh" && cp -L "$1" "$ROOT$n" && echo "$n"
}

# pip's configuration into the root: config files (file-valued settings
# such as cert = a CA bundle copied alongside), PIP_* and proxy variables
# (into INENV; a directory they name, such as find-links, bound read-only)
INENV=()
carry_pip() {
	local f dest k v n var
	for f in /etc/pip.conf /etc/xdg/pip/pip.conf \
		 "$HOME/.config/pip/pip.conf" "$HOME/.pip/pip.conf"; do
		[ -f "$f" ] || continue
		dest=$ROOT${f/#$HOME//root}
		mkdir -p "$(dirname "$dest")" && cp -L "$f" "$dest"
		while read -r k v; do
			[ -f "$v" ] || continue
			n=$(carry_file "$v") &&
				sed -i "s|^\([[:space:]]*${k}[[:space:]]*=[[:space:]]*\).*|\1$n|" "$dest"
		done < <(sed -n 's/^[[:space:]]*\([a-z-]*\)[[:space:]]*=[[:space:]]*\(\/.*\)/\1 \2/p' "$f")
	done
	for var in $(compgen -e); do
		case $var in
		PIP_*|http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY) ;;
		*) continue ;;
		esac
		v=${!var}
		if [ "${v#/}" != "$v" ] && [ -f "$v" ]; then
			v=$(carry_file "$v") || return 1
		elif [ "${v#/}" != "$v" ] && [ -d "$v" ]; then
			bind "$v" "$ROOT$v" ro || return 1
		fi
		INENV+=("$var=$v")
	done
}

make_root() {	# REL: the throwaway root, mounted, with sources and pip
	local rel=$1
	ROOT=$(mktemp -d "$CACHE/$rel/run.XXXXXX") || return 1
	cp -a "$CACHE/$rel/root/." "$ROOT/" || return 1
	rm -f "$ROOT/.pktgen-pristine"
	{
		echo "deb $MIRROR $rel main"
		echo "deb $MIRROR $rel-updates main"
		[ -z "$SECURITY" ] || echo "deb $SECURITY $rel-security main"
	} >"$ROOT/etc/apt/sources.list"
	apt-config dump | grep -Ei '^Acquire::[a-z]+::Proxy' \
		>"$ROOT/etc/apt/apt.conf.d/90pktgen-fresh-proxy"
	# no daemon started from the chroot on the host
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
	chmod 755 "$ROOT/usr/sbin/policy-rc.d"
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null
	INENV=()
	carry_pip || return 1
	mkdir -p "$CACHE/$rel/archives"
	# its / a mount point, as on a machine (unshare -m makes it private)
	bind "$ROOT" "$ROOT" &&
	bind "$CACHE/$rel/archives" "$ROOT/var/cache/apt/archives" &&
	bind /proc "$ROOT/proc" && bind /sys "$ROOT/sys" &&
	bind /dev "$ROOT/dev" &&
	{ mountpoint -q "$ROOT/dev/pts" || bind /dev/pts "$ROOT/dev/pts"; } &&
	mkdir -p "$ROOT/run" && mount -t tmpfs -o mode=755 run "$ROOT/run" &&
	MOUNTS+=("$ROOT/run")
}

# end what still runs in the root, unmount, remove it only when nothing is
# mounted under it any more
drop_root() {
	local p i left
	[ -n "$ROOT" ] || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] &&
			kill -9 "${p#/proc/}" 2>/dev/null
	done
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount -R "${MOUNTS[i]}" 2>/dev/null ||
			umount -R -l "${MOUNTS[i]}" 2>/dev/null
	done
	MOUNTS=()
	left=$(awk -v r="$ROOT" 'index($5, r "/") == 1 || $5 == r' /proc/self/mountinfo)
	if [ -n "$left" ]; then
		echo "# still mounted under $ROOT, not removed:"
		ktap_diag "$left"
	else
		rm -rf --one-file-system "$ROOT"
	fi
	ROOT=""
}
defer drop_root

inroot() {	# CMD: bash -c CMD in the root, as root, a login's environment
	chroot "$ROOT" /usr/bin/env -i HOME=/root PATH="$INPATH" TERM=dumb \
		LANG=C.UTF-8 USER=root LOGNAME=root "${INENV[@]}" \
		bash -c "cd /root && $1"
}

# the checkout as it is (tracked and new files, and .git) into /root/pktgen
copy_checkout() {
	mkdir -p "$ROOT/root/pktgen" &&
	git -C "$REPO" ls-files -z --cached --others --exclude-standard |
		tar -C "$REPO" --null --ignore-failed-read -T - -cf - |
		tar -C "$ROOT/root/pktgen" -xf - &&
	cp -a "$REPO/.git" "$ROOT/root/pktgen/"
}

# ---------------------------------------------------------------- a run

one() {	# REL
	local rel=$1 log t0 t_all=$SECONDS t_db t_apt t_run st out kl
	local names=("$rel: a throwaway root from the pristine one, mounted"
		"$rel: apt-get install git make (the README's starting point)"
		"$rel: make run exits 0"
		"$rel: make run prints Result: OK"
		"$rel: vng from a venv of its own (or Debian's), no system-wide pip"
		"$rel: setup.sh again installs nothing"
		"$rel: the kernels of $rel built and named"
		"$rel: no kernel image installed, the images in the cache")
	log=$T/$rel
	mkdir -p "$CACHE/$rel"

	t0=$SECONDS
	if ! out=$(pristine "$rel" 2>&1); then
		ktap_fail "$rel: debootstrap --variant=minbase $rel" "$out"
		ktap_not_reached $((PER - 1)) "${names[@]:1}"
		return
	fi
	t_db=$((SECONDS - t0))
	ktap_pass "$rel: debootstrap --variant=minbase $rel (${out:+$out, }${t_db}s)"

	if ! { make_root "$rel" && copy_checkout; } >"$log-root.log" 2>&1; then
		ktap_fail "${names[0]}" "$(cat "$log-root.log")"
		ktap_not_reached $((PER - 2)) "${names[@]:1}"
		drop_root
		return
	fi

	t0=$SECONDS
	inroot "apt-get update && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q git make" >"$log-apt.log" 2>&1
	st=$?
	t_apt=$((SECONDS - t0))
	if [ "$st" -ne 0 ]; then
		ktap_fail "${names[1]}" "$(tail -n 20 "$log-apt.log")"
		ktap_not_reached $((PER - 2)) "${names[@]:2}"
		drop_root
		return
	fi
	ktap_pass "${names[1]} (${t_apt}s)"

	t0=$SECONDS
	inroot "cd pktgen && make run" >"$log-run.log" 2>&1 </dev/null
	st=$?
	t_run=$((SECONDS - t0))
	ktap_diag "$(grep -a -e '^setup' -e '^build ' -e '^vm.sh' -e '^Result' \
		"$log-run.log")"
	if [ "$st" -eq 0 ]; then
		ktap_pass "${names[2]} (${t_run}s)"
	else
		ktap_fail "${names[2]}" "$(sed -n "/^vm.sh: .*'s oops (/,/^vm.sh: the end of/p" \
				"$log-run.log"
			tail -n 15 "$log-run.log"
			[ -s "$ROOT/tmp/pktgen-setup.log" ] &&
				tail -n 15 "$ROOT/tmp/pktgen-setup.log")"
	fi
	if grep -aq '^Result: OK:' "$log-run.log"; then
		ktap_pass "${names[3]}"
	else
		ktap_fail "${names[3]}" "no Result: OK line"
	fi

	# vng: setup's venv under the cache or Debian's /usr/bin/vng, and
	# no pip outside that venv
	out=$(grep -a '^setup: ok: vng ' "$log-run.log")
	case $out in
	*" at /root/.cache/pktgen/virtme-ng-"*/bin/vng,*|*" at /usr/bin/vng,"*)
		if inroot "python3 -m pip --version" >/dev/null 2>&1; then
			ktap_fail "${names[4]}" "python3 -m pip works system-wide"
		else
			ktap_pass "${names[4]}"
		fi ;;
	*) ktap_fail "${names[4]}" "${out:-no 'setup: ok' line}" ;;
	esac

	st=0
	out=$(inroot "cd pktgen && tests/lib/setup.sh" 2>&1) || st=$?
	if [ "$st" -eq 0 ] && ! grep -q -e 'apt-get install' -e 'venv' <<<"$out"; then
		ktap_pass "${names[5]}"
	else
		ktap_fail "${names[5]}" "$out"
	fi

	# Debian 12: 6.1 and 6.12; 13: 6.12 and no 6.1 (the suite has none)
	kl=$(sed -n 's/^setup: ok: .*kernels: //p' <<<"$out")
	case $rel:$kl in
	bookworm:6.1.*" "6.12.*) st=0 ;;
	trixie:6.12.*) case " $kl" in *" 6.1."*) st=1 ;; *) st=0 ;; esac ;;
	*) st=1 ;;
	esac
	for k in $kl; do
		grep -aq "^build $k: ok" "$log-run.log" || st=1
	done
	if [ "$st" -eq 0 ] && [ -n "$kl" ]; then
		ktap_pass "${names[6]}: $kl"
	else
		ktap_fail "${names[6]}" "kernels: $kl; $(grep -a '^build ' "$log-run.log")"
	fi

	# the host's boot set untouched: no linux-image package, nothing in
	# /boot; each kernel's image unpacked under the cache instead
	out=$(inroot "dpkg-query -W -f='\${Package} \${Status}\n' 'linux-image-*' \
		2>/dev/null | grep ' installed\$'; ls /boot/vmlinuz-* 2>/dev/null")
	st=0
	[ -z "$out" ] || st=1
	for k in $kl; do
		[ -s "$ROOT/root/.cache/pktgen/kernels/$k/vmlinuz" ] ||
			{ st=1; out+=" no cached image of $k"; }
	done
	if [ "$st" -eq 0 ] && [ -n "$kl" ]; then
		ktap_pass "${names[7]}"
	else
		ktap_fail "${names[7]}" "installed: $out"
	fi

	drop_root
	out="$rel: debootstrap ${t_db}s, apt-get install git make ${t_apt}s,"
	ktap_diag "$out make run ${t_run}s, all $((SECONDS - t_all))s"
}

for rel in $RELEASES; do
	one "$rel"
done
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernels from Debian's archive, used WITHOUT installing them as the
# host's: nothing goes to /boot or /lib/modules, no boot entry changes.
#
#	tests/lib/kernels.sh fetch [KREL...]	download and prepare (as root)
#	tests/lib/kernels.sh list		the prepared ones, one a line
#	tests/lib/kernels.sh set		the default set ($KERNEL_SET)
#	tests/lib/kernels.sh suite		the kernels make run tests by
#					default: the host's (headers in
#					/lib/modules/KREL/build, image in
#					/boot) and those tests/lib/setup.sh
#					fetched for the host's release
#					(KREL/suite marks them)
#	tests/lib/kernels.sh newest		fetch the newest kernel Debian
#					builds (trixie-backports'), or
#					$CHECK_NEWEST if it names one, and
#					mark it KREL/check (the only mark)
#	tests/lib/kernels.sh oldest		fetch the oldest kernel line the
#					module supports (Debian 11's 5.10,
#					its newest ABI in bullseye's lists),
#					or $CHECK_OLDEST if it names one,
#					and mark it KREL/oldest (the only
#					mark)
#	tests/lib/kernels.sh check		the kernels make check tests by
#					default: suite's and those marked
#					check and oldest
#
# For each KREL (e.g. 7.3.4+deb13-amd64), in $PKTGEN_CACHE/kernels
# (default ~/.cache/pktgen/kernels):
#	KREL/vmlinuz		the image (vm.sh boots it with vng)
#	KREL/lib/modules/KREL	its module tree with the stock pktgen.ko,
#				depmod'ed (guest.sh bind-mounts it over
#				the guest's /lib/modules/KREL)
#	KREL/root		the name of the build root its headers are in
#	KREL/check, KREL/oldest	the marks of newest and oldest
#	root-REL/		a debootstrapped Debian REL (bullseye,
#				bookworm, trixie)
#				with make, the kernel's gcc and its headers
#				(and, in bullseye's, sparse) installed by apt: build-all.sh builds there
#				(chroot), with the compiler the kernel was
#				built with
# The packages come from a sources list of their own (apt/sources.list:
# bullseye, bookworm, trixie, trixie-backports; the host's mirror), with
# `apt-get download`: the host's apt state is not touched.  APT_HOST=1
# (setup.sh, for the host's own release) takes the host's sources and
# lists instead and keeps the .debs in /var/cache/apt/archives.
# Headers of a kernel built on trixie need trixie's libc and gcc-14, so
# they cannot be installed on a Debian 12 host: hence the roots.
set -u

CACHE=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}/kernels
# 6.12-rt of Debian 12, one release in between (headers of 6.16 to 7.1
# are no longer in trixie-backports, only images) and the newest of
# trixie-backports with its PREEMPT_RT build
KERNEL_SET=${KERNEL_SET:-6.12.117+deb12-rt-amd64 7.2.12+deb13-amd64 7.3.4+deb13-amd64 7.3.4+deb13-rt-amd64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
LOG=${KERNELS_LOG:-/tmp/pktgen-kernels.log}
# make check's newest kernel: "newest" (resolved from the archive's lists
# each day: backports move on and drop the old headers), a KREL, or none
CHECK_NEWEST=${CHECK_NEWEST:-newest}
# make check's oldest kernel: "oldest" (Debian 11's 5.10, its newest ABI
# in the lists: security updates move it), a KREL, or none
CHECK_OLDEST=${CHECK_OLDEST:-oldest}
# downloaded packages, kept; `image` leaves them where apt keeps its own
DEBS=$CACHE/apt/debs

die() { echo "kernels: $*" >&2; exit 1; }

apt_opts() {
	# APT_HOST: the host's own sources and lists (setup.sh has updated them)
	if [ -n "${APT_HOST:-}" ]; then
		echo "-o APT::Sandbox::User=root"
		return
	fi
	echo "-o Dir::Etc::sourcelist=$CACHE/apt/sources.list" \
	     "-o Dir::Etc::sourceparts=/dev/null" \
	     "-o Dir::State::Lists=$CACHE/apt/lists" \
	     "-o Dir::Cache=$CACHE/apt/cache" \
	     "-o APT::Sandbox::User=root"
}

apt_lists() {	# once a day: the package lists of the suites above
	local stamp=$CACHE/apt/lists/.stamp
	mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache/archives/partial" \
		"$CACHE/apt/debs"
	cat >"$CACHE/apt/sources.list.new" <<-EOF
	deb $MIRROR bullseye main
	deb $MIRROR bullseye-updates main
	deb $SECURITY bullseye-security main
	deb $MIRROR bookworm main
	deb $MIRROR bookworm-updates main
	deb $SECURITY bookworm-security main
	deb $MIRROR trixie main
	deb $MIRROR trixie-backports main
	EOF
	# a changed list of suites: its lists now, not tomorrow
	cmp -s "$CACHE/apt/sources.list.new" "$CACHE/apt/sources.list" || rm -f "$stamp"
	mv "$CACHE/apt/sources.list.new" "$CACHE/apt/sources.list"
	[ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ] && return 0
	echo "kernels: apt-get update (suites: bullseye, bookworm, trixie, trixie-backports)"
	# shellcheck disable=SC2046
	nice apt-get $(apt_opts) update >>"$LOG" 2>&1 || die "apt-get update failed (log: $LOG)"
	touch "$stamp"
}

suite_of() {	# KREL: the Debian release that built it
	case $1 in
	*+deb13*) echo trixie ;;
	*+deb12* | 6.1.0-*) echo bookworm ;;
	5.10.0-*) echo bullseye ;;
	*) return 1 ;;
	esac
}

download() {	# PKG...: into $DEBS (kept), prints the files
	local p f
	for p in "$@"; do
		f=$(find "$DEBS" -name "${p}_*.deb" | sort -V | tail -n 1)
		if [ -z "$f" ]; then
			# shellcheck disable=SC2046
			(cd "$DEBS" && nice apt-get $(apt_opts) download "$p") \
				>>"$LOG" 2>&1 || die "apt-get download $p failed (log: $LOG)"
			f=$(find "$DEBS" -name "${p}_*.deb" | sort -V | tail -n 1)
		fi
		echo "$f"
	done
}

# the image packages: one linux-image-KREL up to 6.12 (Debian 12), split
# from 6.16 into linux-binary-KREL (vmlinuz), linux-modules-KREL and
# linux-base-KREL (config, modules.builtin, modules.order)
image_pkgs() {
	# shellcheck disable=SC2046
	if apt-cache $(apt_opts) show "linux-binary-$1" >/dev/null 2>&1; then
		echo "linux-binary-$1 linux-modules-$1 linux-base-$1"
	else
		echo "linux-image-$1"
	fi
}

prepare_image() {	# KREL: KREL/vmlinuz and KREL/lib/modules/KREL
	local k=$1 d=$CACHE/$1 tmp deb
	[ -s "$d/vmlinuz" ] && [ -s "$d/lib/modules/$k/modules.dep" ] &&
		[ -s "$d/lib/modules/$k/modules.builtin" ] && return 0
	echo "kernels: $k: image and modules (dpkg -x into $d)"
	tmp=$d/unpack.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp" || die "mkdir $tmp"
	# shellcheck disable=SC2046
	for deb in $(download $(image_pkgs "$k")); do
		dpkg-deb -x "$deb" "$tmp" || die "dpkg-deb -x $deb"
	done
	# the tree under /lib or, from 6.16's split packages, /usr/lib, with
	# the image inside it instead of in /boot
	if [ -d "$tmp/usr/lib/modules/$k" ]; then
		mkdir -p "$tmp/lib/modules" || die "mkdir in $tmp"
		mv "$tmp/usr/lib/modules/$k" "$tmp/lib/modules/" || die "mv in $tmp"
	fi
	[ -d "$tmp/lib/modules/$k/kernel" ] || die "$k: no lib/modules/$k in its packages"
	mv "$tmp/boot/vmlinuz-$k" "$d/vmlinuz" 2>/dev/null ||
		mv "$tmp/lib/modules/$k/vmlinuz" "$d/vmlinuz" 2>/dev/null ||
		die "$k: no vmlinuz in its packages"
	cp "$tmp/boot/config-$k" "$d/config" 2>/dev/null ||
		cp "$tmp/lib/modules/$k/config" "$d/config" 2>/dev/null
	rm -rf "$d/lib/modules/$k"
	mkdir -p "$d/lib/modules"
	mv "$tmp/lib/modules/$k" "$d/lib/modules/" || die "mv into $d"
	rm -rf "$tmp"
	depmod -b "$d" "$k" || die "$k: depmod -b $d failed"
}

in_root() {	# ROOT SCRIPT: sh -c SCRIPT in ROOT, with /proc and /dev
	# mounted in a mount namespace of its own (gone when it ends)
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount --make-rprivate / &&
		mount -t proc proc "$0/proc" && mount --bind /dev "$0/dev" &&
		exec chroot "$0" sh -c "$1"' "$1" "$2"
}

# what a root needs beside the headers: make, a compiler, perl (W=1's
# kernel-doc up to 6.12 wants Pod::Usage, not in perl-base); bullseye's
# also its own sparse (0.6.3): the host's does not run on bullseye's
# older libc, and build-all.sh --sparse runs sparse inside the root
ROOT_PKGS="make gcc libc6-dev perl"
root_pkgs() {	# REL
	case $1 in
	bullseye) echo "$ROOT_PKGS sparse" ;;
	*) echo "$ROOT_PKGS" ;;
	esac
}

prepare_root() {	# REL: root-REL with root_pkgs REL, once
	local rel=$1 r=$CACHE/root-$1 pkgs
	pkgs=$(root_pkgs "$rel")
	[ "$(cat "$r/.pktgen-pkgs" 2>/dev/null)" = "$pkgs" ] && return 0
	if [ ! -d "$r" ]; then
		command -v debootstrap >/dev/null ||
			die "no debootstrap (apt-get install debootstrap)"
		echo "kernels: debootstrap --variant=minbase $rel into $r"
		rm -rf "$r.tmp"
		# shellcheck disable=SC2046
		nice debootstrap --variant=minbase \
			$([ -n "${APT_HOST:-}" ] && echo --cache-dir="$DEBS") \
			"$rel" "$r.tmp" "$MIRROR" >>"$LOG" 2>&1 ||
			die "debootstrap $rel failed (log: $LOG)"
		{
			# the release's standard suites: a kernel's headers
			# pin its image's version, which may be a security
			# update (setup.sh takes the host's newest)
			echo "deb $MIRROR $rel main"
			echo "deb $MIRROR $rel-updates main"
			echo "deb $SECURITY $rel-security main"
			[ "$rel" = trixie ] && echo "deb $MIRROR trixie-backports main"
		} >"$r.tmp/etc/apt/sources.list"
		mv "$r.tmp" "$r"
	fi
	echo "kernels: apt-get install $pkgs in $r"
	in_root "$r" "apt-get update && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $pkgs" \
		>>"$LOG" 2>&1 || die "$rel root: apt-get install $pkgs failed (log: $LOG)"
	echo "$pkgs" >"$r/.pktgen-pkgs"
}

has_headers() {	# ROOT KREL: its build tree is there (an absolute
	# link in the root's /lib/modules/KREL/build points into the root)
	local b
	b=$(readlink "$1/lib/modules/$2/build") || return 1
	case $b in
	/*) [ -e "$1$b/Makefile" ] ;;
	*) [ -e "$1/lib/modules/$2/build/Makefile" ] ;;
	esac
}

prepare_headers() {	# KREL: its headers installed into root-REL by apt
	local k=$1 rel r debs st
	rel=$(suite_of "$k") || die "$k: which Debian release built it?"
	r=$CACHE/root-$rel
	prepare_root "$rel"
	if ! has_headers "$r" "$k"; then
		echo "kernels: $k: headers into $r (apt-get install in a chroot)"
		mkdir -p "$r/var/cache/pktgen-debs"
		# the headers' own packages by name, their dependencies
		# (gcc-N, linux-kbuild-*, libc) from the root's suites
		debs=$(download "linux-headers-$k") || exit 1
		# shellcheck disable=SC2046
		debs+=" $(download $(apt-cache $(apt_opts) depends "linux-headers-$k" |
			sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ <]*\)$/\1/p' | sort -u))" ||
			exit 1
		# shellcheck disable=SC2086
		cp $debs "$r/var/cache/pktgen-debs/"
		# the image is not installed there: only what builds modules
		in_root "$r" 'cd /var/cache/pktgen-debs &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends ./*.deb' >>"$LOG" 2>&1
		st=$?
		rm -rf "$r/var/cache/pktgen-debs"
		[ "$st" -eq 0 ] || die "$k: headers into $r failed (log: $LOG)"
	fi
	echo "$rel" >"$CACHE/$k/root"
}

# the newest generic amd64 kernel built for trixie whose headers the
# archive has (trixie-backports', or trixie's own)
newest_krel() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) pkgnames linux-headers- 2>/dev/null |
		sed -n 's/^linux-headers-\([0-9][0-9.]*+deb13-amd64\)$/\1/p' |
		sort -V | tail -n 1
}

# the newest ABI of Debian 11's 5.10 whose headers the archive has
oldest_krel() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) pkgnames linux-headers-5.10.0- 2>/dev/null |
		sed -n 's/^linux-headers-\(5\.10\.0-[0-9]*-amd64\)$/\1/p' |
		sort -V | tail -n 1
}

mark_one() {	# KREL MARK: the only kernel of the cache with MARK
	local m
	for m in "$CACHE"/*/"$2"; do
		[ -e "$m" ] && [ "$m" != "$CACHE/$1/$2" ] && rm -f "$m"
	done
	touch "$CACHE/$1/$2"
}

ready() {	# KREL: image, modules and headers all there
	local d=$CACHE/$1 rel
	[ -s "$d/vmlinuz" ] && [ -s "$d/lib/modules/$1/modules.builtin" ] &&
		[ -s "$d/lib/modules/$1/modules.dep" ] && [ -s "$d/root" ] && rel=$(cat "$d/root") &&
		has_headers "$CACHE/root-$rel" "$1"
}

marked() {	# MARK: the ready kernels of the cache marked KREL/MARK
	local m
	for m in "$CACHE"/*/"$1"; do
		[ -e "$m" ] || continue
		m=$(basename "$(dirname "$m")")
		ready "$m" && echo "$m"
	done
}

fetch_one() {	# KREL
	local k=${1%:fast} rel t0
	if [ -e "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k/build" ]; then
		echo "kernels: $k: installed on the host"
		return 0
	fi
	rel=$(suite_of "$k") || die "$k: which Debian release built it?"
	prepare_root "$rel"
	if ready "$k"; then
		echo "kernels: $k: ready"
		return 0
	fi
	t0=$SECONDS
	mkdir -p "$CACHE/$k"
	prepare_image "$k"
	prepare_headers "$k"
	echo "kernels: $k: ready ($((SECONDS - t0))s)"
}

case ${1:-} in
fetch)
	shift
	[ "$(id -u)" -eq 0 ] || die "fetch needs root (debootstrap, chroot, mount)"
	# shellcheck disable=SC2086
	[ $# -gt 0 ] || set -- $KERNEL_SET
	[ -n "${APT_HOST:-}" ] || : >"$LOG"
	if [ -n "${APT_HOST:-}" ]; then
		DEBS=/var/cache/apt/archives
	else
		apt_lists
	fi
	for k in "$@"; do
		fetch_one "$k"
	done
	;;
newest)
	[ "$CHECK_NEWEST" = none ] && exit 0
	[ "$(id -u)" -eq 0 ] || die "fetch needs root (debootstrap, chroot, mount)"
	apt_lists
	k=$CHECK_NEWEST
	[ "$k" = newest ] && k=$(newest_krel)
	[ -n "$k" ] || die "no linux-headers-*+deb13-amd64 in the archive's lists (log: $LOG)"
	fetch_one "$k"
	# one mark: a newer kernel takes it from the one before
	mark_one "$k" check
	echo "kernels: newest: $k"
	;;
oldest)
	[ "$CHECK_OLDEST" = none ] && exit 0
	[ "$(id -u)" -eq 0 ] || die "fetch needs root (debootstrap, chroot, mount)"
	apt_lists
	k=$CHECK_OLDEST
	[ "$k" = oldest ] && k=$(oldest_krel)
	[ -n "$k" ] || die "no linux-headers-5.10.0-*-amd64 in the archive's lists (log: $LOG)"
	fetch_one "$k"
	mark_one "$k" oldest
	echo "kernels: oldest: $k"
	;;
suite)
	{
		for b in /lib/modules/*/build; do
			[ -d "$b" ] || continue
			k=$(basename "$(dirname "$b")")
			[ -e "/boot/vmlinuz-$k" ] && echo "$k"
		done
		marked suite
	} | sort -uV
	;;
check)
	{
		"$0" suite
		marked check
		marked oldest
	} | sort -uV
	;;
list)
	for d in "$CACHE"/*/vmlinuz; do
		[ -e "$d" ] || continue
		k=$(basename "$(dirname "$d")")
		ready "$k" && echo "$k"
	done | sort -V
	;;
set)
	# shellcheck disable=SC2086
	printf '%s\n' $KERNEL_SET
	;;
*)
	echo "usage: $0 fetch [KREL...] | newest | oldest | check | list | set | suite" >&2
	exit 2
	;;
esac

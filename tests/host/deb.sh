#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the Debian package proved on Debian.  For each release in
# DEB_RELEASES (default bookworm): a root debootstrapped once and kept
# pristine in $PKTGEN_CACHE/deb/REL/root (default ~/.cache/pktgen), with
# the release's linux-image-amd64 and linux-headers-amd64, dkms and
# python3 (the package's dependencies, so that purge leaves the root as
# it was), and what
# `make deb` needs (debhelper, dh-dkms, lintian) installed by apt; copied
# to a throwaway root for every run.  There, as a user would:
#   make deb (lintian: no error), a throwaway MOK key in dkms's
#   framework.conf, apt install ./build/pktgen-dkms_*.deb (DKMS builds,
#   signs and installs both modules for the root's kernel); then the
#   root's own kernel boots with the root as its filesystem (vng --root):
#   modprobe pktgen is ours (its version file), sample01 on a dummy
#   device gives Result: OK, modprobe pf_ipoption works; apt purge, the
#   file list is the one before the install, and a second boot loads the
#   kernel's own pktgen.  make sign: the tree's module built for the
#   root's kernel and signed with the same throwaway key (modinfo signer,
#   sig_key), then insmod'ed in the second boot in place of the stock one.
# KTAP, then the closing "N passed, N failed, N skipped" line; exit 4
# (every subtest skipped) without root, debootstrap or vng.
#
#	tests/host/deb.sh	(DEB_RELEASES="bookworm trixie" for both; make
#				check-all runs both, make check Debian 12)

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tests/lib/lib.sh"

if [ -z "${DEB_PRIVATE:-}" ] && [ "$(id -u)" -eq 0 ] &&
   unshare -m --propagation private true 2>/dev/null; then
	exec env DEB_PRIVATE=1 unshare -m --propagation private "$0" "$@"
fi

# make check: Debian 12; make check-all (CHECK_MATRIX=1): Debian 12 and 13
if [ "${CHECK_MATRIX:-0}" = 1 ]; then
	RELEASES=${DEB_RELEASES:-bookworm trixie}
else
	RELEASES=${DEB_RELEASES:-bookworm}
fi
PKC=${PKTGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktgen}
CACHE=$PKC/deb
MIRROR=${DEB_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# the kernel and its headers, DKMS, what the guest runs, and make deb's
PKGS="linux-image-amd64 linux-headers-amd64 dkms kmod iproute2 procps openssl python3 make build-essential debhelper dh-dkms lintian python3-docutils"
PER=13			# subtests per release
INPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
T=$(lib_tmpdir)
ROOT=""

VNG=$PKC/bin/vng
[ -x "$VNG" ] || VNG=$(command -v vng)
FORCE_9P=""
[ -n "$VNG" ] && "$VNG" --help 2>/dev/null | grep -q -e '--force-9p' && FORCE_9P=--force-9p

ktap_header
ktap_plan $((PER * $(wc -w <<<"$RELEASES")))

[ "$(id -u)" -eq 0 ] || ktap_skip_all "deb" "needs root"
[ -n "${DEB_PRIVATE:-}" ] || ktap_skip_all "deb" "needs unshare -m"
command -v debootstrap >/dev/null || ktap_skip_all "deb" "no debootstrap (apt-get install debootstrap)"
[ -n "$VNG" ] || ktap_skip_all "deb" "no vng (tests/lib/setup.sh)"
PATH=$(dirname "$(readlink -f "$VNG")"):$PATH

in_root() {	# DIR CMD: bash -c CMD in the root DIR, as root, with /proc,
	# /sys, /dev and apt's archives mounted for the command only
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount --make-rprivate / &&
		mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" &&
		mount --rbind /dev "$0/dev" &&
		mount --bind "$1" "$0/var/cache/apt/archives" &&
		exec chroot "$0" /usr/bin/env -i HOME=/root PATH="$2" TERM=dumb \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			bash -c "cd /root && $3"' \
		"$1" "$ARCHIVES" "$INPATH" "$2"
}

pristine() {	# REL: debootstrap and apt once into $CACHE/REL/root
	local d=$CACHE/$1 r
	r=$d/root
	[ "$(cat "$r/.pktgen-pkgs" 2>/dev/null)" = "$PKGS" ] && { echo cached; return 0; }
	rm -rf "$r.tmp" "$r"
	mkdir -p "$ARCHIVES"
	debootstrap --variant=minbase --cache-dir="$ARCHIVES" "$1" "$r.tmp" \
		"$MIRROR" >"$T/$1-debootstrap.log" 2>&1 ||
		{ tail -n 20 "$T/$1-debootstrap.log"; return 1; }
	{
		echo "deb $MIRROR $1 main"
		echo "deb $MIRROR $1-updates main"
		echo "deb $SECURITY $1-security main"
	} >"$r.tmp/etc/apt/sources.list"
	apt-config dump | grep -Ei '^Acquire::[a-z]+::Proxy' \
		>"$r.tmp/etc/apt/apt.conf.d/90pktgen-proxy"
	# no daemon started from the chroot on the host
	printf '#!/bin/sh\nexit 101\n' >"$r.tmp/usr/sbin/policy-rc.d"
	chmod 755 "$r.tmp/usr/sbin/policy-rc.d"
	cp -L /etc/resolv.conf "$r.tmp/etc/resolv.conf"
	in_root "$r.tmp" "apt-get update && apt-get install -y -q \
		--no-install-recommends $PKGS" >"$T/$1-apt.log" 2>&1 ||
		{ tail -n 20 "$T/$1-apt.log"; return 1; }
	rm -f "$r.tmp"/var/cache/apt/archives/*.deb
	echo "$PKGS" >"$r.tmp/.pktgen-pkgs" && mv "$r.tmp" "$r"
}

drop_root() {
	[ -n "$ROOT" ] && rm -rf --one-file-system "$ROOT"
	ROOT=""
}
defer drop_root

# the checkout as it is (tracked and new files) into /root/pktgen
copy_checkout() {
	mkdir -p "$ROOT/root/pktgen" &&
	git -C "$REPO" ls-files -z --cached --others --exclude-standard |
		tar -C "$REPO" --null --ignore-failed-read -T - -cf - |
		tar -C "$ROOT/root/pktgen" -xf -
}

# every file and link of the root but the ones apt, dpkg and the test
# itself change, sorted
file_list() {
	(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./run -o -path ./tmp -o -path ./root -o -path ./var/cache \
		-o -path ./var/log -o -path ./var/lib/apt \) -prune -o \
		! -name '*-old' -print | sort)
}

# The guest: modprobe pktgen, its version, sample01 on a dummy device,
# pf_ipoption; its lines for the host start with "deb-guest:"
write_guest() {
	cat >"$ROOT/root/deb-guest.sh" <<-'EOF'
	#!/bin/bash
	# printed at the end: the first lines of a guest's stdout were
	# seen lost
	modprobe pktgen || echo "deb-guest: modprobe pktgen failed"
	f=$(modinfo -F filename pktgen)
	v=$(cat /sys/module/pktgen/version 2>/dev/null || echo none)
	ip link add name pgd0 type dummy && ip link set pgd0 up
	/root/pktgen/samples/pktgen_sample01_simple.sh -i pgd0 \
		-m 02:00:00:00:00:01 -n 1000 2>&1 | sed 's/^/deb-guest: sample: /'
	modprobe pf_ipoption && echo "deb-guest: pf_ipoption $(modinfo -F filename pf_ipoption)"
	if [ -e /root/load-signed ]; then	# make sign's module, after the stock one
		rmmod pf_ipoption 2>/dev/null; rmmod pktgen
		insmod /root/pktgen/pktgen.ko &&
			echo "deb-guest: signed loaded $(cat /sys/module/pktgen/version)" &&
			echo "deb-guest: signed taint $(cat /proc/sys/kernel/tainted)"
	fi
	echo "deb-guest: file $f"
	echo "deb-guest: version $v"
	echo "deb-guest: done"
	EOF
}

boot() {	# KV LOG: the root's kernel, the root as its filesystem
	timeout -k 30 900 "$VNG" --run "$ROOT/boot/vmlinuz-$1" --root "$ROOT" \
		--disable-kvm $FORCE_9P --cpus 2 --memory 1G \
		--append "panic_on_warn=1 loglevel=4 norandmaps" \
		-- "bash /root/deb-guest.sh" </dev/null >"$2" 2>&1
}


one() {	# REL
	local rel=$1 log t0 t_all=$SECONDS out kv ver st
	local names=("$rel: make deb; lintian reports no error"
		"$rel: apt install ./build/pktgen-dkms_VERSION_all.deb"
		"$rel: DKMS installed both modules, signed with the MOK key"
		"$rel: the tools, the header, the documentation, the source"
		"$rel: boot: modprobe pktgen loads ours (its version)"
		"$rel: boot: sample01 on a dummy device, Result: OK"
		"$rel: boot: modprobe pf_ipoption loads ours"
		"$rel: make sign: the tree's modules signed (modinfo signer, sig_key)"
		"$rel: boot: make sign's pktgen.ko loads in the root's kernel"
		"$rel: apt purge pktgen-dkms"
		"$rel: after purge, the root's files are those before the install"
		"$rel: boot after purge: the kernel's own pktgen")
	log=$T/$rel
	ARCHIVES=$CACHE/$rel/archives
	mkdir -p "$ARCHIVES"

	t0=$SECONDS
	if ! out=$(pristine "$rel" 2>&1); then
		ktap_fail "$rel: root with linux-image, headers, dkms, debhelper" "$out"
		ktap_not_reached $((PER - 1)) "${names[@]}"
		return
	fi
	ktap_pass "$rel: root with linux-image, headers, dkms, debhelper ($out, $((SECONDS - t0))s)"

	ROOT=$(mktemp -d "$CACHE/$rel/run.XXXXXX") &&
		cp -a "$CACHE/$rel/root/." "$ROOT/" && copy_checkout && write_guest
	kv=$(find "$ROOT/boot" -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' |
		sort -V | tail -n 1)
	ver=$(cat "$REPO/VERSION")

	t0=$SECONDS
	in_root "$ROOT" "cd pktgen && make deb" >"$log-deb.log" 2>&1
	st=$?
	out=$(grep -a '^[EW]: ' "$log-deb.log")
	if [ "$st" -eq 0 ] && ! grep -q '^E: ' <<<"$out"; then
		ktap_pass "${names[0]} ($((SECONDS - t0))s)"
		[ -z "$out" ] || ktap_diag "lintian: $out"
	else
		ktap_fail "${names[0]}" "$(tail -n 30 "$log-deb.log")"
		ktap_not_reached $((PER - 2)) "${names[@]:1}"
		drop_root
		return
	fi

	# a throwaway MOK key for dkms to sign with, as a user's enrolled one
	in_root "$ROOT" "mkdir -p /root/mok && openssl req -new -x509 -newkey rsa:2048 \
		-nodes -days 30 -subj '/CN=pktgen test MOK/' -outform DER \
		-keyout /root/mok/mok.priv -out /root/mok/mok.der &&
		printf 'mok_signing_key=/root/mok/mok.priv\nmok_certificate=/root/mok/mok.der\n' \
		>>/etc/dkms/framework.conf" >"$log-mok.log" 2>&1 ||
		ktap_diag "MOK key: $(cat "$log-mok.log")"
	file_list >"$log-before"

	t0=$SECONDS
	# without its Recommends (matplotlib and its libraries): apt would not
	# purge them with it, and the file lists are to show ours alone
	if in_root "$ROOT" "apt-get install -y -q --no-install-recommends \
		./pktgen/build/pktgen-dkms_${ver}_all.deb" \
		>"$log-apt.log" 2>&1; then
		ktap_pass "${names[1]} ($((SECONDS - t0))s)"
	else
		ktap_fail "${names[1]}" "$(tail -n 30 "$log-apt.log")"
	fi

	out=$(in_root "$ROOT" "dkms status pktgen; for m in pktgen pf_ipoption; do
		f=\$(modinfo -k $kv -F filename \$m); echo \$f; modinfo -F version \$f;
		modinfo -F signer \$f; done" 2>&1)
	if grep -q "^pktgen/$ver, $kv, .*: installed" <<<"$out" &&
	   [ "$(grep -c "^/lib/modules/$kv/updates/dkms/" <<<"$out")" = 2 ] &&
	   [ "$(grep -c '^pktgen test MOK$' <<<"$out")" = 2 ]; then
		ktap_pass "${names[2]}"
	else
		ktap_fail "${names[2]}" "$out"
	fi

	out=$(in_root "$ROOT" "ls -l /usr/bin/pgstats /usr/lib/pktgen/pktgen-sweep \
		/usr/include/linux/pf_ipoption.h /usr/share/doc/pktgen-dkms/README* \
		/usr/src/pktgen-$ver/dkms.conf /usr/src/pktgen-$ver/ipoption/Kbuild &&
		pgstats --help >/dev/null && dpkg -s pktgen-dkms | grep -E '^(Depends|Recommends):'" 2>&1)
	st=$?
	if [ "$st" -eq 0 ]; then
		ktap_pass "${names[3]}"
		ktap_diag "$(grep -E '^(Depends|Recommends):' <<<"$out")"
	else
		ktap_fail "${names[3]}" "$out"
	fi

	t0=$SECONDS
	boot "$kv" "$log-boot1.log"
	st=$?
	ktap_diag "boot $kv: exit $st, $((SECONDS - t0))s"
	out=$(grep -ao 'deb-guest: version.*' "$log-boot1.log")
	if [ "$out" = "deb-guest: version $ver" ] &&
	   grep -aq "deb-guest: file /lib/modules/$kv/updates/dkms/pktgen.ko" "$log-boot1.log"; then
		ktap_pass "${names[4]}"
	else
		ktap_fail "${names[4]}" "$(tail -n 30 "$log-boot1.log")"
	fi
	if grep -aq 'deb-guest: sample: Result: OK' "$log-boot1.log"; then
		ktap_pass "${names[5]}"
	else
		ktap_fail "${names[5]}" "$(grep -ao 'deb-guest: sample.*' "$log-boot1.log" | tail -n 20)"
	fi
	if grep -aq "deb-guest: pf_ipoption /lib/modules/$kv/updates/dkms/" "$log-boot1.log"; then
		ktap_pass "${names[6]}"
	else
		ktap_fail "${names[6]}" "$(grep -a 'pf_ipoption' "$log-boot1.log" | tail -n 10)"
	fi

	# make sign on the tree's own build, with the MOK key DKMS used
	t0=$SECONDS
	out=$(in_root "$ROOT" "cd pktgen && make KVER=$kv >/dev/null &&
		make sign KVER=$kv MODDIR=. KEY=/root/mok/mok.priv CERT=/root/mok/mok.der >/dev/null &&
		for f in pktgen.ko ipoption/pf_ipoption.ko; do
			echo \"signer=\$(modinfo -F signer \$f) sig_key=\$(modinfo -F sig_key \$f)\"
		done" 2>&1)
	if [ "$(grep -c '^signer=pktgen test MOK sig_key=[0-9A-F:]\{20,\}$' <<<"$out")" = 2 ]; then
		ktap_pass "${names[7]} ($((SECONDS - t0))s)"
		ktap_diag "$out"
	else
		ktap_fail "${names[7]}" "$out"
	fi

	check "${names[9]}" in_root "$ROOT" "apt-get purge -y -q pktgen-dkms"
	file_list >"$log-after"
	if out=$(diff "$log-before" "$log-after"); then
		ktap_pass "${names[10]}"
	else
		ktap_fail "${names[10]}" "$out"
	fi
	touch "$ROOT/root/load-signed"

	t0=$SECONDS
	boot "$kv" "$log-boot2.log"
	st=$?
	ktap_diag "boot $kv: exit $st, $((SECONDS - t0))s"
	# the kernel's own says 2.75 (or nothing, on kernels without one)
	if grep -aq 'deb-guest: version ' "$log-boot2.log" &&
	   ! grep -aq "deb-guest: version $ver\$" "$log-boot2.log" &&
	   grep -aq "deb-guest: file /lib/modules/$kv/kernel/net/core/pktgen.ko" "$log-boot2.log"; then
		ktap_pass "${names[11]}"
	else
		ktap_fail "${names[11]}" "$(grep -ao "deb-guest: .*" "$log-boot2.log" || tail -n 30 "$log-boot2.log")"
	fi
	if grep -aq "deb-guest: signed loaded $ver\$" "$log-boot2.log"; then
		ktap_pass "${names[8]}"
		ktap_diag "$(grep -ao 'deb-guest: signed taint.*' "$log-boot2.log")"
	else
		ktap_fail "${names[8]}" "$(grep -ao "deb-guest: .*" "$log-boot2.log" | tail -n 20)"
	fi

	drop_root
	ktap_diag "$rel: all $((SECONDS - t_all))s"
}

for rel in $RELEASES; do
	one "$rel"
done
echo "$_KT_PASS passed, $_KT_FAIL failed, $_KT_SKIP skipped"
ktap_finish

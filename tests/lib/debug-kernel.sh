#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make debug-kernel`: build Debian's linux-source-6.12 with
# tests/debug/debug.config (KASAN, UBSAN, lockdep, kmemleak, debug objects,
# refcount trackers, fault injection) and install it for the VM tests:
#	/lib/modules/KREL/		modules_install
#	/lib/modules/KREL/build ->	the build tree (for M= builds, vm.sh
#					boots its arch/x86/boot/bzImage)
# The build is cached outside the repository in
# $PG_DEBUG_CACHE (~/.cache/pktgen-debug)/build-HASH, HASH covering the
# config fragment, the source package version and the compiler: a second
# run with nothing changed only reinstalls.  Prints KREL last.
# PG_DEBUG_CONFIG=NAME takes tests/debug/NAME.config instead (debug by
# default; kcsan for `make kcsan-kernel`, KREL 6.12.117-pgkcsan;
# kcsan-mod, KREL 6.12.117-pgkcsanmod, only our module instrumented): its own
# HASH, so its own build tree, from the same extracted source.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${PG_DEBUG_CACHE:-$HOME/.cache/pktgen-debug}
FRAG=$REPO/tests/debug/${PG_DEBUG_CONFIG:-debug}.config
TARBALL=/usr/src/linux-source-6.12.tar.xz
JOBS=${JOBS:-$(nproc)}
[ -f "$FRAG" ] || { echo "debug-kernel: no $FRAG" >&2; exit 1; }

log() { echo "debug-kernel: $*" >&2; }

if [ ! -f "$TARBALL" ]; then
	log "installing linux-source-6.12"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.12 \
		bc bison flex libelf-dev libssl-dev >&2
fi
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || stat -c %Y "$TARBALL")
hash=$( { cat "$FRAG"; echo "$srcver"; gcc --version | head -n 1; } |
	sha256sum | cut -c1-12)
SRC=$CACHE/src/linux-source-6.12
OBJ=$CACHE/build-$hash
mkdir -p "$CACHE/src"

if [ ! -f "$SRC/.pg-extracted-$srcver" ]; then
	log "extracting $TARBALL"
	rm -rf "$SRC"
	tar -C "$CACHE/src" -xf "$TARBALL"
	touch "$SRC/.pg-extracted-$srcver"
fi

# "# pg-make: VAR=value ..." lines of the fragment are make variables of
# the kernel's build (in the hash with the fragment): kcsan-mod.config
# builds the kernel with KCSAN_SANITIZE=n, so only modules built later
# against it (ours) are instrumented
read -ra MAKEVARS <<<"$(sed -n 's/^# pg-make: //p' "$FRAG" | tr '\n' ' ')"
kmake() { make -C "$SRC" O="$OBJ" ARCH=x86_64 -j"$JOBS" "${MAKEVARS[@]}" "$@"; }

if [ ! -f "$OBJ/.pg-built" ]; then
	t0=$SECONDS
	mkdir -p "$OBJ"
	log "configuring $OBJ"
	KCONFIG_ALLCONFIG=$FRAG kmake allnoconfig >&2
	kmake olddefconfig >&2
	# every option of the fragment must have survived (a missing
	# dependency silently drops one otherwise)
	missing=0
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		if ! grep -qxF "$line" "$OBJ/.config"; then
			log "not in .config: $line"
			missing=1
		fi
	done <"$FRAG"
	[ "$missing" -eq 0 ] || { log "config incomplete"; exit 1; }
	log "building with $JOBS jobs"
	kmake bzImage modules >&2
	touch "$OBJ/.pg-built"
	echo "$((SECONDS - t0))" >"$OBJ/.pg-build-seconds"
	log "built in $((SECONDS - t0)) s"
fi

KREL=$(kmake -s kernelrelease 2>/dev/null | tail -n 1)
# PG_DEBUG_NO_INSTALL=1: build only, e.g. while a VM runs the installed one
# (it loads its modules from /lib/modules/$KREL)
if [ -n "${PG_DEBUG_NO_INSTALL:-}" ]; then
	log "built, not installed: $OBJ"
	exit 0
fi
if [ "$(readlink -f "/lib/modules/$KREL/build" 2>/dev/null)" != "$OBJ" ] ||
   [ ! -f "/lib/modules/$KREL/modules.dep" ]; then
	log "installing modules as /lib/modules/$KREL"
	rm -rf "/lib/modules/$KREL"
	kmake modules_install INSTALL_MOD_STRIP=1 >&2
	ln -sfn "$OBJ" "/lib/modules/$KREL/build"
fi
log "ready: $KREL (built in $(cat "$OBJ/.pg-build-seconds") s)"
echo "$KREL"

#!/usr/bin/env bash
# scripts/install-deps.sh: install what building and testing arraysim needs on
# Debian 12 / Ubuntu. Idempotent; uses sudo only when not already root.
#   build:  build-essential meson ninja-build pkg-config and the -dev packages
#   tests:  libcmocka-dev (unit), fuse3 fio attr python3 lmdb-utils curl
#           libcap2-bin (setcap, getcap: tests/integration/killpriv.sh,
#           xattr_caps.sh)
#           prometheus and graphite-carbon (integration; their services
#           are not needed, the tests run their own servers on loopback),
#           chromium (renders the page of arraysim report,
#           tests/integration/report.sh), nbdkit libnbd-bin tgt
#           libiscsi-bin qemu-utils qemu-block-extra (the LUN tests: NBD
#           and iSCSI servers and clients), bonnie++ postmark (the
#           bonnie++/Postmark report's runs, tests/integration/seed003.sh
#           and bench/seed003.sh)
#   fuzz:   clang (libFuzzer build, -Dfuzz=true)
#   deb:    debhelper dpkg-dev fakeroot lintian man-db (scripts/deb-check.sh:
#           dpkg-buildpackage -b -us -uc, then the package used)
set -euo pipefail

PACKAGES=(
	build-essential meson ninja-build pkg-config
	libfuse3-dev fuse3 liburing-dev libxxhash-dev libssl-dev libcmocka-dev
	liblmdb-dev lmdb-utils libinih-dev liblz4-dev libzstd-dev
	libmicrohttpd-dev
	fio attr libcap2-bin python3 curl prometheus chromium graphite-carbon
	nbdkit libnbd-bin tgt libiscsi-bin qemu-utils qemu-block-extra e2fsprogs
	bonnie++ postmark
	clang
	debhelper dpkg-dev fakeroot lintian man-db
)

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: not root and no sudo" >&2; exit 1; }
	SUDO=(sudo)
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y --no-install-recommends "${PACKAGES[@]}"

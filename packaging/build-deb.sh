#!/bin/sh
# Builds the Debian package collectd-memcg-bpf from this tree, the way a
# packager would: make dist, unpack the tarball, add packaging/debian as
# debian/, dpkg-buildpackage -us -uc -b, then lintian (fails on errors).
#   packaging/build-deb.sh [OUTDIR [ARCH]]   (default OUTDIR: ./deb-out)
# ARCH other than the build machine's (arm64 on amd64) cross-builds:
# dpkg-buildpackage -a ARCH -Pcross, with the ARCH libraries of the
# Build-Depends installed through multiarch (scripts/deps.sh does it for arm64).
# Needs: dpkg-dev, debhelper and the Build-Depends of packaging/debian/control;
# lintian when installed. Environment: see dist-tarball.sh; MEMCG_BPF_WORKDIR
# for the scratch directory (default: a new one under /tmp, removed at exit
# unless MEMCG_BPF_KEEP=1).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-deb-out}" && cd "${1:-deb-out}" && pwd)
arch=${2:-$(dpkg --print-architecture)}
cross=
[ "$arch" = "$(dpkg --print-architecture)" ] || cross="-a $arch -Pcross"
work=${MEMCG_BPF_WORKDIR:-$(mktemp -d /tmp/memcg-bpf-deb.XXXXXX)}
[ -n "${MEMCG_BPF_WORKDIR:-}" ] || [ "${MEMCG_BPF_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

tarball=$("$here/dist-tarball.sh" "$work")
version=$(basename "$tarball" .tar.gz)
version=${version#memcg_bpf-}
debversion=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
if [ "${debversion%-*}" != "$version" ]; then
	echo "build-deb: the tarball is $version but debian/changelog says $debversion" >&2
	exit 1
fi

rm -rf "$work/deb"
mkdir -p "$work/deb"
cp "$tarball" "$work/deb/memcg-bpf_$version.orig.tar.gz"
tar -C "$work/deb" -xzf "$tarball"
mv "$work/deb/memcg_bpf-$version" "$work/deb/memcg-bpf-$version"
cp -r "$here/debian" "$work/deb/memcg-bpf-$version/debian"
# shellcheck disable=SC2086 # $cross is a list of options
(cd "$work/deb/memcg-bpf-$version" && dpkg-buildpackage -us -uc -b $cross) >"$work/deb/build.log" 2>&1 || {
	tail -n 30 "$work/deb/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $work/deb/build.log)" >&2
	exit 1
}
cp "$work/deb/"*.deb "$work/deb/"*.buildinfo "$work/deb/"*.changes "$out/"
cp "$work/deb/build.log" "$out/build.log"
changes=$(ls "$out"/memcg-bpf_"$debversion"_"$arch".changes)
if command -v lintian >/dev/null; then
	echo "build-deb: lintian $(basename "$changes")"
	lintian --fail-on error --display-info --pedantic "$changes" | tee "$out/lintian.txt"
else
	echo "build-deb: lintian not installed; skipped" >&2
fi
ls "$out"/*.deb

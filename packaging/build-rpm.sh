#!/bin/sh
# Builds the RPM collectd-memcg-bpf from this tree: make dist, then
# rpmbuild -bb with packaging/rpm/memcg-bpf.spec in a private _topdir, then
# rpmlint when installed (reported, not fatal; packaging/rpm/README.rpmlint
# explains what it says).
#   packaging/build-rpm.sh [OUTDIR [ARCH]]   (default OUTDIR: ./rpm-out)
# ARCH aarch64 on an x86_64 machine cross-builds (rpmbuild --target aarch64,
# configure --host=aarch64-linux-gnu with Debian's cross toolchain and arm64
# libraries from multiarch, as packaging/build-deb.sh does for arm64).
# On Debian rpm's database is empty, so the BuildRequires cannot be checked:
# MEMCG_BPF_RPM_NODEPS=1 (the default on Debian) passes --nodeps and builds
# with Debian's equivalents of the BuildRequires (those of
# packaging/debian/control). Environment: see dist-tarball.sh and
# build-deb.sh (MEMCG_BPF_WORKDIR, MEMCG_BPF_KEEP).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-rpm-out}" && cd "${1:-rpm-out}" && pwd)
arch=${2:-$(uname -m)}
work=${MEMCG_BPF_WORKDIR:-$(mktemp -d /tmp/memcg-bpf-rpm.XXXXXX)}
[ -n "${MEMCG_BPF_WORKDIR:-}" ] || [ "${MEMCG_BPF_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
nodeps=${MEMCG_BPF_RPM_NODEPS:-}
[ -n "$nodeps" ] || { [ -f /etc/debian_version ] && nodeps=1 || nodeps=0; }

tarball=$("$here/dist-tarball.sh" "$work")
top="$work/rpmbuild"
rm -rf "$top"
mkdir -p "$top/SOURCES" "$top/SPECS"
cp "$tarball" "$top/SOURCES/"
cp "$here/rpm/memcg-bpf.spec" "$top/SPECS/"
set -- -bb --define "_topdir $top"
if [ "$arch" != "$(uname -m)" ]; then
	triplet=$arch-linux-gnu
	command -v "$triplet-gcc" >/dev/null ||
		{ echo "build-rpm: $triplet-gcc not found: a cross build for $arch needs Debian's cross toolchain (scripts/deps.sh)" >&2; exit 1; }
	set -- "$@" --target "$arch" --define "_build $(uname -m)-linux-gnu" --define "_host $triplet" \
		--define "__strip $triplet-strip" \
		--define "__objdump $triplet-objdump"
fi
# Debian's rpm runs brp-compress, which uses bash's read -d, under its
# #!/bin/sh (dash), so man pages stay uncompressed: run it with bash. One
# line: rpm keeps only the first line of a --define (brp-strip, on a second
# line, never ran, and the programs shipped their debug info).
if [ -f /etc/debian_version ]; then
	set -- "$@" --define "__os_install_post /bin/bash /usr/lib/rpm/brp-compress %{_prefix}; \
/usr/lib/rpm/brp-strip %{__strip}; /usr/lib/rpm/brp-remove-la-files"
fi
[ "$nodeps" = 1 ] && set -- "$@" --nodeps
rpmbuild "$@" "$top/SPECS/memcg-bpf.spec" >"$top/build.log" 2>&1 || {
	tail -n 30 "$top/build.log" >&2
	echo "build-rpm: rpmbuild failed (log: $top/build.log)" >&2
	exit 1
}
find "$top/RPMS" -name '*.rpm' -exec cp {} "$out/" \;
cp "$top/build.log" "$out/build.log"
if command -v rpmlint >/dev/null; then
	echo "build-rpm: rpmlint"
	rpmlint -c "$here/rpm/rpmlint.toml" "$here/rpm/memcg-bpf.spec" "$out"/*.rpm |
		tee "$out/rpmlint.txt" || true
else
	echo "build-rpm: rpmlint not installed; skipped" >&2
fi
ls "$out"/*.rpm

#!/bin/sh
# make packagecheck: the packages as a fleet gets them. Needs root (it
# installs the .deb on this machine with apt and removes it again), so it is
# not part of make check.
#  1. the man page follows the code (check-man.sh);
#  2. packaging/build-deb.sh: make dist -> dpkg-buildpackage -> lintian
#     (fails on lintian errors);
#  3. apt-get install ./collectd-memcg-bpf_*.deb; dpkg -L has the expected
#     layout; the conffile is registered; collectd -t and collectd -T accept
#     a configuration that includes the shipped snippet, enabled;
#     apt-get purge leaves nothing behind;
#  4. packaging/build-rpm.sh: make dist -> rpmbuild --nodeps; rpm -qlp has
#     the expected layout.
# Prints the time each step takes. Exit 77 (skip) when not root or when
# dpkg-buildpackage/rpmbuild are missing; exit 1 on the first failure.
# Environment: MEMCG_BPF_SRCDIR, MEMCG_BPF_BUILDDIR (set by make packagecheck).
set -eu
src=${MEMCG_BPF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${MEMCG_BPF_BUILDDIR:?MEMCG_BPF_BUILDDIR: the configured build directory}
pkg=collectd-memcg-bpf

[ "$(id -u)" = 0 ] || { echo "packagecheck: SKIP: needs root (installs $pkg)"; exit 77; }
for tool in dpkg-buildpackage dh rpmbuild collectd; do
	command -v "$tool" >/dev/null || { echo "packagecheck: SKIP: $tool missing (apt-get install dpkg-dev debhelper rpm collectd-core lintian rpmlint)"; exit 77; }
done
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
	echo "packagecheck: $pkg is already installed here; not touching it (apt-get purge $pkg first)" >&2
	exit 1
fi

work=$(mktemp -d /tmp/memcg-bpf-packagecheck.XXXXXX)
installed=0
cleanup() {
	if [ $installed = 1 ]; then
		echo "packagecheck: removing $pkg after a failure"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" >/dev/null 2>&1 || true
	fi
	[ "${MEMCG_BPF_KEEP:-0}" = 1 ] && echo "packagecheck: kept $work" || rm -rf "$work"
}
trap cleanup EXIT
t_all=$(date +%s)
step_start() { t0=$(date +%s); echo "packagecheck: == $1"; }
step_end() { echo "packagecheck: ok ($(($(date +%s) - t0)) s) $1"; }
fail() { echo "packagecheck: FAIL: $*" >&2; exit 1; }

# ---- 1. man page
step_start "man page follows the code"
make -C "$build" doc/collectd-memcg_bpf.5 >/dev/null
"$src/tests/packaging/check-man.sh" "$src" "$build" || fail "man page (check-man.sh)"
step_end "man page"

# ---- 2. .deb
step_start "build the .deb (packaging/build-deb.sh)"
MEMCG_BPF_WORKDIR="$work/debwork" "$src/packaging/build-deb.sh" "$work/deb" >"$work/build-deb.out" 2>&1 ||
	{ cat "$work/build-deb.out"; fail "build-deb.sh"; }
deb=$(ls "$work"/deb/${pkg}_*_amd64.deb)
lintian_lines=$(grep -c '^[EWIP]: ' "$work/deb/lintian.txt" || true)
[ "$lintian_lines" = 0 ] || { cat "$work/deb/lintian.txt"; fail "lintian has $lintian_lines findings (see packaging/debian/README.lintian)"; }
step_end "$(basename "$deb"), lintian clean"

# ---- 3. install, layout, collectd, purge
step_start "apt-get install ./$(basename "$deb")"
installed=1
(cd "$work/deb" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"./$(basename "$deb")") >"$work/apt-install.log" 2>&1 || { cat "$work/apt-install.log"; fail "apt-get install"; }
step_end "installed"

step_start "dpkg -L layout"
conf=/etc/collectd/collectd.conf.d/memcg_bpf.conf
dpkg -L "$pkg" | sort >"$work/dpkg-L"
for f in /usr/lib/collectd/memcg_bpf.so /usr/bin/memcg-bpf-sample "$conf" \
	/usr/share/man/man5/collectd-memcg_bpf.5.gz /usr/share/man/man1/memcg-bpf-sample.1.gz \
	/usr/share/doc/$pkg/copyright /usr/share/doc/$pkg/changelog.Debian.gz; do
	grep -qx "$f" "$work/dpkg-L" || fail "dpkg -L $pkg has no $f"
	[ -f "$f" ] || fail "$f is not on disk"
done
# nothing but those, their directories and the README
unexpected=$(grep -v -x -e '/\.' -e '/etc' -e '/etc/collectd' -e /etc/collectd/collectd.conf.d -e "$conf" \
	-e /usr -e /usr/bin -e /usr/bin/memcg-bpf-sample -e /usr/lib -e /usr/lib/collectd \
	-e /usr/lib/collectd/memcg_bpf.so -e /usr/share -e /usr/share/doc -e "/usr/share/doc/$pkg" \
	-e "/usr/share/doc/$pkg/copyright" -e "/usr/share/doc/$pkg/changelog.Debian.gz" \
	-e "/usr/share/doc/$pkg/README.gz" -e /usr/share/lintian -e /usr/share/lintian/overrides \
	-e "/usr/share/lintian/overrides/$pkg" -e /usr/share/man -e /usr/share/man/man1 -e /usr/share/man/man5 \
	-e /usr/share/man/man5/collectd-memcg_bpf.5.gz -e /usr/share/man/man1/memcg-bpf-sample.1.gz \
	"$work/dpkg-L" || true)
[ -z "$unexpected" ] || fail "unexpected files in $pkg: $unexpected"
dpkg-query -W -f='${Conffiles}\n' "$pkg" | grep -q " $conf " || fail "$conf is not a conffile"
grep -q '^#LoadPlugin memcg_bpf$' "$conf" || fail "$conf: no commented LoadPlugin line"
grep -q '^[^#]' "$conf" && fail "$conf has active lines as shipped"
man -w collectd-memcg_bpf >/dev/null 2>&1 || fail "man -w collectd-memcg_bpf finds no page"
/usr/bin/memcg-bpf-sample --list-stats >/dev/null || fail "installed memcg-bpf-sample --list-stats"
step_end "$(wc -l <"$work/dpkg-L") paths as expected, conffile registered"

step_start "collectd -t / -T with the shipped snippet"
mkdir -p "$work/collectd/conf.d"
# collectd's Debian collectd.conf includes collectd.conf.d the same way.
cat >"$work/collectd/collectd.conf" <<CONF
BaseDir "$work/collectd"
PIDFile "$work/collectd/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval 1
<Include "$work/collectd/conf.d">
	Filter "*.conf"
</Include>
CONF
# as shipped: everything commented out, collectd accepts it and loads nothing
cp "$conf" "$work/collectd/conf.d/memcg_bpf.conf"
collectd -t -C "$work/collectd/collectd.conf" >"$work/t0.log" 2>&1 || { cat "$work/t0.log"; fail "collectd -t, snippet as shipped"; }
# enabled the way its header says
sed 's/^#\([^ #]\)/\1/' "$conf" >"$work/collectd/conf.d/memcg_bpf.conf"
grep -q '^LoadPlugin memcg_bpf$' "$work/collectd/conf.d/memcg_bpf.conf" || fail "enabling the snippet gives no LoadPlugin"
collectd -t -C "$work/collectd/collectd.conf" >"$work/t1.log" 2>&1 || { cat "$work/t1.log"; fail "collectd -t, snippet enabled"; }
# -t only parses; -T also runs init and one read: the plugin must accept every enabled key
collectd -T -C "$work/collectd/collectd.conf" >"$work/T1.log" 2>&1 || { cat "$work/T1.log"; fail "collectd -T, snippet enabled"; }
grep -q 'memcg_bpf plugin: sampling ' "$work/T1.log" || { cat "$work/T1.log"; fail "collectd -T: the plugin did not sample"; }
if grep -E "Initialization of plugin .memcg_bpf. failed|memcg_bpf plugin: .*(unknown config key|expects)" "$work/T1.log"; then
	fail "collectd -T: the plugin refused the enabled snippet"
fi
step_end "collectd -t (shipped, enabled) and -T (enabled): $(grep -m1 -o 'memcg_bpf plugin: backend [a-z]*' "$work/T1.log")"

step_start "apt-get purge $pkg"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" >"$work/apt-purge.log" 2>&1 || { cat "$work/apt-purge.log"; fail "apt-get purge"; }
installed=0
for f in /usr/lib/collectd/memcg_bpf.so /usr/bin/memcg-bpf-sample "$conf"; do
	[ ! -e "$f" ] || fail "$f is still there after purge"
done
step_end "purged, nothing left"

# ---- 4. RPM
step_start "build the RPM (packaging/build-rpm.sh, rpmbuild --nodeps)"
# from the same make dist tarball the .deb was built from
tarball=$(ls "$work"/debwork/dist-build/memcg_bpf-*.tar.gz)
MEMCG_BPF_TARBALL="$tarball" MEMCG_BPF_WORKDIR="$work/rpmwork" "$src/packaging/build-rpm.sh" "$work/rpm" >"$work/build-rpm.out" 2>&1 ||
	{ cat "$work/build-rpm.out"; fail "build-rpm.sh"; }
rpmfile=$(ls "$work"/rpm/$pkg-[0-9]*.x86_64.rpm)
rpm -qlp "$rpmfile" 2>/dev/null | grep -v '^/usr/lib/\.build-id' | sort >"$work/rpm-ql"
cat >"$work/rpm-expected" <<LIST
/etc/collectd.d/memcg_bpf.conf
/usr/bin/memcg-bpf-sample
/usr/lib64/collectd/memcg_bpf.so
/usr/share/doc/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)
/usr/share/doc/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)/README
/usr/share/man/man1/memcg-bpf-sample.1.gz
/usr/share/man/man5/collectd-memcg_bpf.5.gz
LIST
sort -o "$work/rpm-expected" "$work/rpm-expected"
diff -u "$work/rpm-expected" "$work/rpm-ql" || fail "rpm -qlp $(basename "$rpmfile") differs from the expected layout"
rpm -qpc "$rpmfile" 2>/dev/null | grep -qx /etc/collectd.d/memcg_bpf.conf || fail "memcg_bpf.conf is not %config in the RPM"
rpm -qp --requires "$rpmfile" 2>/dev/null | grep -q '^collectd >= ' || fail "the RPM does not require collectd"
step_end "$(basename "$rpmfile"): layout as expected; rpmlint: $(tail -n 1 "$work/rpm/rpmlint.txt" 2>/dev/null | sed 's/ *has taken.*//')"

echo "packagecheck: all ok in $(($(date +%s) - t_all)) s"

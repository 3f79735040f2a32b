#!/bin/sh
# make packagecheck: the packages as a fleet gets them. Needs root (it
# installs the .deb on this machine with apt and removes it again), so it is
# not part of make check. What it changes on the machine is written to a
# ledger first (/var/lib/memcg-bpf-packagecheck): a run that was killed is
# undone by the next one before it starts.
#  1. the man page follows the code (check-man.sh);
#  2. packaging/build-deb.sh: make dist -> dpkg-buildpackage -> lintian
#     (bookworm's; fails on lintian errors), and nothing from lintian but
#     the two I: tags packaging/debian/README.lintian explains; with
#     MEMCG_BPF_PACKAGE_ARM64=1 (make
#     packagecheck-arm64, not in the test command) the same cross-built for arm64: its
#     Architecture, the amd64 package's paths, AArch64 programs, the BPF
#     objects compiled for arm64, lintian clean; both packages' programs
#     carry no debug sections;
#  2c. Debian 13 (trixie), in a root made once by debootstrap and cached
#     (tests/packaging/debian13-root.sh; this run works on an overlay of
#     it, with proc, a read-only sysfs and cgroup tree, and /dev mounted,
#     all unmounted at exit): trixie's lintian --fail-on error says
#     nothing at all about the .changes; apt-get install ./the .deb next to
#     trixie's collectd-core; collectd -f in the root, with the shipped
#     snippet enabled the way step 4 does it, ships memcg_* series of this
#     host to a Prometheus the test starts on 127.0.0.1; apt-get purge
#     leaves no spool directory;
#  3. apt-get install ./collectd-memcg-bpf_*.deb; dpkg -L has the expected
#     layout; the conffile is registered; both installed man pages name
#     the package's version in their footer; the spool directory of the
#     shipped SpoolDir exists (0700, root); collectd -t and collectd -T
#     accept a configuration that includes the shipped snippet, enabled;
#  4. acceptance: with Debian's collectd package (installed from
#     bookworm if missing, removed again afterwards), the shipped snippet
#     enabled with its documented sed and its URL pointed at a Prometheus
#     the test starts on 127.0.0.1 (9090 as shipped when free, else a free
#     port, edited into the URL as an operator would), Interval 2 set on
#     the LoadPlugin line, collectd restarted (`/etc/init.d/collectd
#     restart`; where PID 1 is systemd, `systemctl restart collectd.service`
#     instead, and the running collectd must have the drop-in's open-file
#     limit and CAP_BPF + CAP_PERFMON): memcg_* series of this host appear
#     in Prometheus; the spool directory is owned by the user collectd runs
#     as, mode 0700, and the plugin holds its lock file;
#  5. the dashboard against that data: Prometheus loads
#     packaging/dashboard/memcg_bpf.rules.yml (a test copy evaluated every
#     2 s instead of every minute; the windows are unchanged) and
#     memcg_bpf.cadvisor.rules.yml, then every panel query of
#     memcg_bpf.grafana.json and every recording rule of both files runs
#     through /api/v1/query and must return data, and every alert must
#     evaluate with all its inputs present (query-dashboard.py; on cgroup v1
#     the targets its EXEMPT table names for v2-only stats may be empty;
#     this host has no Kubernetes cgroups, so the cAdvisor series are
#     checked without namespace/pod/container: tests/packaging/synthetic.sh
#     checks those); promtool check rules / test rules
#     (packaging/dashboard/check.sh);
#  6. RRD files, on Debian's stock collectd.conf (rrdtool loaded): a minute
#     after the restart the files under /var/lib/collectd/rrd are listed,
#     then 50 cgroups are added (the plugin must ship them); once they
#     arrived, MEMCG_BPF_RRD_WAIT seconds more (default 20: two of the
#     plugin's intervals and one of the stock plugins') and a SIGUSR1 to
#     collectd (it flushes every write plugin: rrdtool writes all it holds)
#     they are listed again: no memcg_bpf-<cgroup> directory but
#     memcg_bpf-self, the plugin's files did not change, and the total did
#     not grow with the cgroups; the cgroups are removed;
#     collectd and Prometheus are stopped;
#     apt-get purge leaves nothing behind (the spool directory included);
#  7. packaging/build-rpm.sh: make dist -> rpmbuild --nodeps; rpm -qlp has
#     the expected layout (the spool directory 0700 root, the drop-in with
#     the capabilities), both man pages name the version; rpmlint says
#     nothing that packaging/rpm/rpmlint.toml does not filter with a reason;
#     with MEMCG_BPF_PACKAGE_ARM64=1 the same cross-built for aarch64: the x86_64 RPM's paths, AArch64
#     programs, BPF objects for arm64, rpmlint clean; neither RPM's programs
#     carry debug sections.
# Prints the time each step takes. Exit 77 (skip) when not root or when
# dpkg-buildpackage/rpmbuild are missing; exit 1 on the first failure.
# Environment: MEMCG_BPF_SRCDIR, MEMCG_BPF_BUILDDIR (set by make packagecheck);
# MEMCG_BPF_KEEP=1 keeps the work directory. Prometheus and promtool come
# from Debian sid, unpacked into ~/.cache/memcg_bpf/receivers
# (tests/sender/fetch-receivers.sh, tests/packaging/fetch-promtool.sh); the
# Debian 13 root from ~/.cache/memcg_bpf/debian13 (the first run makes it:
# about 7 minutes and 455 MB).
set -eu
src=${MEMCG_BPF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${MEMCG_BPF_BUILDDIR:?MEMCG_BPF_BUILDDIR: the configured build directory}
pkg=collectd-memcg-bpf
# MEMCG_BPF_PACKAGE_ARM64=1 (make packagecheck-arm64): the arm64 .deb and the
# aarch64 RPM too, cross-built from the same tarball (steps 2b and 7b)
arm64=${MEMCG_BPF_PACKAGE_ARM64:-0}

[ "$(id -u)" = 0 ] || { echo "packagecheck: SKIP: needs root (installs $pkg)"; exit 77; }
for tool in dpkg-buildpackage dh rpmbuild collectd; do
	command -v "$tool" >/dev/null || { echo "packagecheck: SKIP: $tool missing (apt-get install dpkg-dev debhelper rpm collectd-core lintian rpmlint)"; exit 77; }
done

# What a run changes on this machine (a package it installs, a directory or
# a cgroup it makes, the system's collectd it starts) goes into a ledger
# before it is done, and is undone from the ledger at exit, last first. A
# run that was killed (its EXIT trap never ran) leaves its ledger behind:
# the next run undoes it first, so one killed run cannot fail the next
# one. Whatever the ledger does not list (an operator's own install of the
# package, a running collectd) is never touched.
ledger_dir=/var/lib/memcg-bpf-packagecheck
ledger=$ledger_dir/ledger
systemd=0
ledger_add() { # ledger_add KIND WHAT, before doing it
	mkdir -p "$ledger_dir" && echo "$1 $2" >>"$ledger"
}
undo() { # undo KIND WHAT: undoes one ledger entry, then drops it
	case $1 in
	package)
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$2" >/dev/null 2>&1 ||
			echo "packagecheck: could not purge $2 (apt-get purge $2)" >&2
		;;
	collectd) stop_collectd ;;
	cgroup)
		if [ -d "$2" ]; then
			for d in "$2"/c*/; do [ ! -d "$d" ] || rmdir "$d" 2>/dev/null || true; done
			rmdir "$2" 2>/dev/null || echo "packagecheck: could not remove the cgroup $2" >&2
		fi
		;;
	dir) rm -rf --one-file-system "$2" ;;
	esac
	[ ! -f "$ledger" ] || { grep -vxF "$1 $2" "$ledger" >"$ledger.new" || true; mv "$ledger.new" "$ledger"; }
}
undo_ledger() { # undo_ledger WHY: says WHY and what the ledger lists, then undoes it all, last first
	[ -s "$ledger" ] || return 0
	echo "packagecheck: $1: $(tac "$ledger" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
	# tac has read the whole ledger before undo rewrites it
	tac "$ledger" | while read -r kind what; do undo "$kind" "$what"; done
	rm -f "$ledger"
	rmdir "$ledger_dir" 2>/dev/null || true
}
stop_pid() { # stop_pid PID: TERM, then KILL after 10 s
	kill -TERM "$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$1" 2>/dev/null || true
}
# stop_collectd: the init script's stop (collectdmon by its pidfile), then
# both PIDs checked and, if still alive, stopped by PID. A pidfile whose PID
# is no collectd (left by a killed run, the PID since reused) is removed.
stop_collectd() {
	if [ $systemd = 1 ]; then
		systemctl stop collectd.service >/dev/null 2>&1 || true
		return 0
	fi
	mon=$(cat /var/run/collectd.pid 2>/dev/null || true)
	[ -n "$mon" ] || return 0
	case $(cat "/proc/$mon/comm" 2>/dev/null) in
	collectd*) ;;
	*) rm -f /var/run/collectd.pid; return 0 ;;
	esac
	child=$(ps -o pid= --ppid "$mon" 2>/dev/null | tr -d ' ' || true)
	/etc/init.d/collectd stop >/dev/null 2>&1 || true
	for p in $mon $child; do stop_pid "$p"; done
	rm -f /var/run/collectd.pid
}

# systemd as PID 1 (sd_booted()'s test): the acceptance then runs collectd
# as collectd.service; otherwise through the init script, and says why.
[ ! -d /run/systemd/system ] || systemd=1
undo_ledger "an earlier run was stopped before its cleanup; undoing what its ledger ($ledger) lists"
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
	echo "packagecheck: $pkg is already installed here, not by this test; not touching it (apt-get purge $pkg first)" >&2
	exit 1
fi

if [ $systemd = 1 ]; then
	echo "packagecheck: PID 1 is systemd: collectd runs as collectd.service"
else
	echo "packagecheck: PID 1 is $(cat /proc/1/comm 2>/dev/null || echo unknown), not systemd: collectd.service is" \
		"not tested here (the drop-in is checked as a file and read offline with systemd-analyze); collectd runs through" \
		"/etc/init.d/collectd"
fi
# The acceptance restarts the system's collectd: not when one is running.
if [ -s /var/run/collectd.pid ] && kill -0 "$(cat /var/run/collectd.pid)" 2>/dev/null; then
	echo "packagecheck: collectd is running here (/var/run/collectd.pid); not touching it" >&2
	exit 1
fi
if [ $systemd = 1 ] && systemctl is-active -q collectd.service; then
	echo "packagecheck: collectd.service is active here; not touching it" >&2
	exit 1
fi
# Prometheus and promtool (Debian sid, unpacked, cached)
prometheus=$("$src/tests/sender/fetch-receivers.sh" 2>/dev/null | awk '$1 == "prometheus" { print $3 }') || true
[ -x "$prometheus" ] || { echo "packagecheck: SKIP: no Prometheus (tests/sender/fetch-receivers.sh: no network and no cache)"; exit 77; }
promtool=$("$src/tests/packaging/fetch-promtool.sh") || { echo "packagecheck: SKIP: no promtool (no network and no cache)"; exit 77; }

work=$(mktemp -d /tmp/memcg-bpf-packagecheck.XXXXXX)
prom_pid=
debian13=$src/tests/packaging/debian13-root.sh
d13_mounted=0 # 1: step 2c's overlay of the Debian 13 root is mounted at $work/debian13/root
d13_collectd_pid=
cleanup() {
	[ -z "$d13_collectd_pid" ] || stop_pid "$d13_collectd_pid"
	[ -z "$prom_pid" ] || stop_pid "$prom_pid"
	# the Debian 13 root's mounts go before anything under $work is removed
	# (its /dev is the host's); if one stays, so does $work
	if [ $d13_mounted = 1 ] && ! "$debian13" leave "$work/debian13"; then
		MEMCG_BPF_KEEP=1
	fi
	undo_ledger "undoing what this run did"
	[ "${MEMCG_BPF_KEEP:-0}" = 1 ] && echo "packagecheck: kept $work" || rm -rf --one-file-system "$work"
}
trap cleanup EXIT
t_all=$(date +%s)
step_start() { t0=$(date +%s); echo "packagecheck: == $1"; }
# unit_keeps ROOT CAP: true when collectd.service, read from ROOT with its
# drop-ins the way systemd reads them, keeps CAP (CAP_BPF, CAP_SYS_ADMIN, ...)
# in its capability bounding set. systemd-analyze security --offline: no
# running systemd needed.
unit_keeps() {
	systemd-analyze security --offline=yes --root="$1" --json=short collectd.service 2>"$work/analyze.err" |
		python3 -c 'import json, sys
d = {e["json_field"]: e["set"] for e in json.load(sys.stdin)}
sys.exit(0 if d["CapabilityBoundingSet_" + sys.argv[1]] is False else 1)' "$2"
}
step_end() { echo "packagecheck: ok ($(($(date +%s) - t0)) s) $1"; }
fail() { echo "packagecheck: FAIL: $*" >&2; exit 1; }
# collectd_conf BASEDIR CONFD [LINE...]: a collectd.conf with Debian's plugin
# directory and types.db, the LINEs, then CONFD/*.conf included the way
# Debian's collectd.conf includes collectd.conf.d
collectd_conf() {
	cc_base=$1 cc_confd=$2
	shift 2
	printf '%s\n' "BaseDir \"$cc_base\"" "PIDFile \"$cc_base/collectd.pid\"" 'PluginDir "/usr/lib/collectd"' \
		'TypesDB "/usr/share/collectd/types.db"'
	[ $# = 0 ] || printf '%s\n' "$@"
	printf '%s\n' "<Include \"$cc_confd\">" '	Filter "*.conf"' '</Include>'
}
# enable_snippet CONF PORT: what an operator does to the shipped snippet
# CONF: the sed of its header, the URL to the Prometheus on 127.0.0.1:PORT
# (edited as an operator would), a shorter interval for this plugin only
enable_snippet() {
	sed -i 's/^#\([^ #]\)/\1/' "$1"
	sed -i "s|^\(\tURL \"http://\)127.0.0.1:9090/|\1127.0.0.1:$2/|" "$1"
	sed -i 's|^LoadPlugin memcg_bpf$|<LoadPlugin memcg_bpf>\n\tInterval 2\n</LoadPlugin>|' "$1"
	grep -q "^	URL \"http://127.0.0.1:$2/api/v1/write\"$" "$1" || { cat "$1"; fail "the enabled snippet $1 has no URL to 127.0.0.1:$2"; }
}
# start_prometheus DIR: Prometheus with the remote-write receiver on
# 127.0.0.1 (9090 as the snippet ships when free, else a free port), its
# configuration DIR/prometheus.yml, data and log in DIR; sets port, prom
# (its URL) and prom_pid once it is ready
start_prometheus() {
	port=9090
	if ! python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 9090))' 2>/dev/null; then
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	fi
	"$prometheus" --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/data" \
		--web.listen-address="127.0.0.1:$port" --web.enable-remote-write-receiver \
		>"$1/prometheus.log" 2>&1 &
	prom_pid=$!
	prom=http://127.0.0.1:$port
	i=0
	until curl -sf -o /dev/null "$prom/-/ready"; do
		kill -0 "$prom_pid" 2>/dev/null && [ $i -lt 300 ] || { cat "$1/prometheus.log"; fail "Prometheus did not start"; }
		sleep 0.1; i=$((i + 1))
	done
}
prom_value() { # prom_value PROMQL: the first value of an instant query at $prom, 0 if none
	curl -sf "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
# host_series_arrive: waits up to 60 s (from t_ship, set here) for memcg_*
# series of this host in the Prometheus at $prom, by either name collectd
# may give it (FQDNLookup); sets host and n (their count); 1 if none came
host_series_arrive() {
	hosts="$(hostname) $(hostname -f 2>/dev/null || true)"
	host=
	t_ship=$(date +%s)
	while [ -z "$host" ] && [ $(($(date +%s) - t_ship)) -lt 60 ]; do
		sleep 1
		for h in $hosts; do
			n=$(prom_value "count({__name__=~\"memcg_.+\", host=\"$h\"})") || n=0
			[ "$n" = 0 ] || { host=$h; break; }
		done
	done
	[ -n "$host" ]
}
# lintian_findings FILE: lintian's tags in FILE but the two I: tags bookworm's
# lintian gives a drop-in for another package's unit (trixie's has no such
# tag; packaging/debian/README.lintian)
lintian_findings() {
	grep '^[EWIP]: ' "$1" |
		grep -v "^I: $pkg: package-supports-alternative-init-but-no-init\.d-script \[usr/lib/systemd/system/collectd\.service\.d/\(memcg_bpf\.conf\)\?\]\$" ||
		true
}
# arm64_built ROOT PLUGIN LOG WHAT: the plugin and the CLI unpacked at ROOT are
# AArch64 programs, and the build LOG compiled the BPF objects for arm64.
arm64_built() {
	for f in "$2" usr/bin/memcg-bpf-sample; do
		machine=$(LC_ALL=C readelf -h "$1/$f" | sed -n 's/^ *Machine: *//p')
		[ "$machine" = AArch64 ] || fail "/$f in $4 is for '$machine', not AArch64"
	done
	grep -q -- '-D__TARGET_ARCH_arm64' "$3" || fail "the build log of $4 shows no BPF object compiled with -D__TARGET_ARCH_arm64"
}
# stripped ROOT PLUGIN WHAT: the plugin and the CLI unpacked at ROOT carry no
# debug sections (the packaging's strip step ran; readelf reads any
# architecture's section table).
stripped() {
	for f in "$2" usr/bin/memcg-bpf-sample; do
		debug=$(LC_ALL=C readelf -SW "$1/$f" | grep -o '\.debug_[a-z_]*' | tr '\n' ' ')
		[ -z "$debug" ] || fail "/$f in $3 ships debug sections: $debug(its strip step did not run)"
	done
}

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
findings=$(lintian_findings "$work/deb/lintian.txt")
[ -z "$findings" ] || { cat "$work/deb/lintian.txt"; fail "lintian: $findings (see packaging/debian/README.lintian)"; }
step_end "$(basename "$deb"), $(lintian --version) clean but for $(grep -c '^I: ' "$work/deb/lintian.txt" || true) I: tags README.lintian explains"

# ---- 2b. the arm64 .deb, cross-built (issue 35): its Architecture, the
# amd64 package's files, AArch64 programs, lintian clean
if [ "$arm64" = 1 ]; then
	step_start "cross-build the arm64 .deb (packaging/build-deb.sh OUT arm64)"
	# from the same make dist tarball as the amd64 one
	MEMCG_BPF_TARBALL=$(ls "$work"/debwork/dist-build/memcg_bpf-*.tar.gz) \
		MEMCG_BPF_WORKDIR="$work/debwork-arm64" "$src/packaging/build-deb.sh" "$work/deb-arm64" arm64 \
		>"$work/build-deb-arm64.out" 2>&1 || { cat "$work/build-deb-arm64.out"; fail "build-deb.sh arm64"; }
	deb_arm64=$(ls "$work"/deb-arm64/${pkg}_*_arm64.deb)
	[ "$(dpkg-deb -f "$deb_arm64" Architecture)" = arm64 ] ||
		fail "$(basename "$deb_arm64") says Architecture: $(dpkg-deb -f "$deb_arm64" Architecture)"
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sort >"$work/deb-files-amd64"
	dpkg-deb -c "$deb_arm64" | awk '{ print $6 }' | sort >"$work/deb-files-arm64"
	diff -u "$work/deb-files-amd64" "$work/deb-files-arm64" || fail "the arm64 package's files differ from the amd64 package's"
	dpkg-deb -x "$deb_arm64" "$work/deb-arm64/root"
	arm64_built "$work/deb-arm64/root" usr/lib/collectd/memcg_bpf.so "$work/debwork-arm64/deb/build.log" "the arm64 .deb"
	stripped "$work/deb-arm64/root" usr/lib/collectd/memcg_bpf.so "the arm64 .deb"
	findings=$(lintian_findings "$work/deb-arm64/lintian.txt")
	[ -z "$findings" ] || { cat "$work/deb-arm64/lintian.txt"; fail "lintian on the arm64 package: $findings"; }
	step_end "$(basename "$deb_arm64"): Architecture arm64, the amd64 package's $(wc -l <"$work/deb-files-arm64") paths, AArch64 programs, stripped, lintian clean"
fi

# ---- 2c. Debian 13 (trixie): its lintian, apt, collectd
step_start "Debian 13: trixie's lintian, apt-get install, collectd ships series"
d13_root=$("$debian13" fetch 2>"$work/debian13-fetch.log") ||
	{ cat "$work/debian13-fetch.log"; fail "no Debian 13 root (tests/packaging/debian13-root.sh)"; }
sed 's/^/packagecheck:   /' "$work/debian13-fetch.log"
d13_mounted=1
d13=$("$debian13" enter "$d13_root" "$work/debian13") || fail "cannot enter the Debian 13 root (tests/packaging/debian13-root.sh)"
mkdir "$d13/tmp/pkg"
cp "$work"/deb/*.deb "$work"/deb/*.changes "$work"/deb/*.buildinfo "$d13/tmp/pkg/"
d13_lintian=$(chroot "$d13" lintian --version)
chroot "$d13" sh -c 'cd /tmp/pkg && lintian --fail-on error --display-info --pedantic ./*.changes' \
	>"$work/deb/lintian-debian13.txt" 2>"$work/deb/lintian-debian13.err" ||
	{ cat "$work/deb/lintian-debian13.txt" "$work/deb/lintian-debian13.err"; fail "$d13_lintian: errors"; }
! grep -q '^[EWIP]: ' "$work/deb/lintian-debian13.txt" ||
	{ cat "$work/deb/lintian-debian13.txt"; fail "$d13_lintian has findings (see packaging/debian/README.lintian)"; }
chroot "$d13" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "/tmp/pkg/$(basename "$deb")" \
	>"$work/debian13/apt-install.log" 2>&1 || { cat "$work/debian13/apt-install.log"; fail "Debian 13: apt-get install"; }
[ -f "$d13/usr/lib/systemd/system/collectd.service.d/memcg_bpf.conf" ] || fail "Debian 13: no collectd.service drop-in"
[ "$(stat -c '%U:%G %a' "$d13/var/lib/collectd/memcg_bpf-spool" 2>&1)" = "root:root 700" ] ||
	fail "Debian 13: the postinst made no spool directory root:root 700"
mkdir -p "$work/debian13/prom"
printf 'global:\n  scrape_interval: 1m\n' >"$work/debian13/prom/prometheus.yml"
start_prometheus "$work/debian13/prom"
enable_snippet "$d13/etc/collectd/collectd.conf.d/memcg_bpf.conf" "$port"
# collectd-core alone has no collectd.conf; the host name is the host's
collectd_conf /var/lib/collectd /etc/collectd/collectd.conf.d "FQDNLookup false" >"$d13/etc/collectd/packagecheck.conf"
chroot "$d13" /usr/sbin/collectd -f -C /etc/collectd/packagecheck.conf >"$work/debian13/collectd.log" 2>&1 &
d13_collectd_pid=$!
host_series_arrive || { tail -n 20 "$work/debian13/collectd.log"; fail "Debian 13: no memcg_* series of host $hosts in Prometheus 60 s after collectd started"; }
d13_backend=$(grep -m1 -o 'memcg_bpf plugin: backend [a-z-]*' "$work/debian13/collectd.log" || true)
stop_pid "$d13_collectd_pid"
d13_collectd_pid=
stop_pid "$prom_pid"
prom_pid=
chroot "$d13" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" >"$work/debian13/apt-purge.log" 2>&1 ||
	{ cat "$work/debian13/apt-purge.log"; fail "Debian 13: apt-get purge"; }
[ ! -e "$d13/var/lib/collectd/memcg_bpf-spool" ] || fail "Debian 13: the spool directory is still there after purge"
"$debian13" leave "$work/debian13" || fail "cannot unmount the Debian 13 root"
d13_mounted=0
step_end "$d13_lintian: nothing; installed next to collectd-core $(awk '$1 == "collectd-core" { print $2 }' "$(dirname "$d13_root")/versions"), $n memcg_* series of host $host in Prometheus $(($(date +%s) - t_ship)) s after collectd started (${d13_backend#memcg_bpf plugin: }); purged"

# ---- 3. install, layout, collectd, purge
step_start "apt-get install ./$(basename "$deb")"
ledger_add package "$pkg"
(cd "$work/deb" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"./$(basename "$deb")") >"$work/apt-install.log" 2>&1 || { cat "$work/apt-install.log"; fail "apt-get install"; }
stripped / usr/lib/collectd/memcg_bpf.so "the .deb"
step_end "installed; its programs stripped"

step_start "dpkg -L layout"
conf=/etc/collectd/collectd.conf.d/memcg_bpf.conf
dropin=/usr/lib/systemd/system/collectd.service.d/memcg_bpf.conf
dpkg -L "$pkg" | sort >"$work/dpkg-L"
for f in /usr/lib/collectd/memcg_bpf.so /usr/bin/memcg-bpf-sample "$conf" "$dropin" \
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
	-e /usr/lib/systemd -e /usr/lib/systemd/system -e /usr/lib/systemd/system/collectd.service.d -e "$dropin" \
	-e /usr/share/man/man5/collectd-memcg_bpf.5.gz -e /usr/share/man/man1/memcg-bpf-sample.1.gz \
	"$work/dpkg-L" || true)
[ -z "$unexpected" ] || fail "unexpected files in $pkg: $unexpected"
dpkg-query -W -f='${Conffiles}\n' "$pkg" | grep -q " $conf " || fail "$conf is not a conffile"
grep -qx 'LimitNOFILE=65536' "$dropin" || fail "$dropin does not raise LimitNOFILE"
# Debian's collectd.service keeps every capability; a CapabilityBoundingSet=
# line in the drop-in would replace that full set (packaging/systemd/memcg_bpf.conf)
! grep -q '^CapabilityBoundingSet' "$dropin" || fail "$dropin sets CapabilityBoundingSet (would narrow Debian's full set)"
if [ $systemd = 1 ]; then
	systemctl daemon-reload
	[ "$(systemctl show collectd.service -p LimitNOFILE --value)" = 65536 ] ||
		fail "systemd does not apply $dropin to collectd.service"
	capbnd=$(systemctl show collectd.service -p CapabilityBoundingSet --value)
	case " $capbnd " in *" cap_bpf "*" cap_perfmon "* | *" cap_perfmon "*" cap_bpf "*) ;;
	*) fail "collectd.service's CapabilityBoundingSet lacks cap_bpf/cap_perfmon: $capbnd" ;; esac
	echo "packagecheck:   systemd applies the drop-in: collectd.service LimitNOFILE=65536, bounding set has cap_bpf cap_perfmon"
else
	echo "packagecheck:   no systemd running on this machine: the drop-in is checked as a file and offline"
fi
# offline, on any machine: Debian's collectd.service with the drop-in keeps
# every capability (CAP_SYS_ADMIN stands for the rest) and so CAP_BPF. Each
# file at its package's path: bookworm's collectd-core has its unit under
# /lib, the drop-in is under /usr/lib (one directory where /usr is merged).
if command -v systemd-analyze >/dev/null; then
	unit=$(dpkg -L collectd-core | grep -m1 '/systemd/system/collectd\.service$') || fail "collectd-core has no collectd.service"
	mkdir -p "$work/unit-deb$(dirname "$unit")" "$work/unit-deb$(dirname "$dropin")"
	cp "$unit" "$work/unit-deb$unit"
	cp "$dropin" "$work/unit-deb$dropin"
	unit_keeps "$work/unit-deb" CAP_BPF && unit_keeps "$work/unit-deb" CAP_SYS_ADMIN ||
		fail "collectd.service + $dropin (systemd-analyze security --offline): CAP_BPF or the full set lost ($(cat "$work/analyze.err"))"
	echo "packagecheck:   collectd.service + drop-in, read offline by systemd-analyze: every capability kept, CAP_BPF included"
else
	echo "packagecheck:   systemd-analyze not installed: the unit and drop-in are not read offline"
fi
# both man pages name the package's version (configure's, from debian/changelog)
upstream=$(dpkg-query -W -f='${Version}' "$pkg")
upstream=${upstream%-*}
for page in /usr/share/man/man5/collectd-memcg_bpf.5.gz /usr/share/man/man1/memcg-bpf-sample.1.gz; do
	th=$(zcat "$page" | grep -m1 '^\.TH ')
	case $th in *"\"memcg_bpf $upstream\""*) ;; *) fail "$page: the footer does not name memcg_bpf $upstream: $th" ;; esac
done
echo "packagecheck:   both man pages: memcg_bpf $upstream"
# the spool directory of the shipped SpoolDir: made by the postinst
spool=/var/lib/collectd/memcg_bpf-spool
grep -q "^#	SpoolDir \"$spool\"\$" "$conf" || fail "$conf: no SpoolDir \"$spool\" to enable"
[ "$(stat -c '%U:%G %a' "$spool" 2>&1)" = "root:root 700" ] ||
	fail "$spool: $(stat -c '%U:%G %a' "$spool" 2>&1), not root:root 700"
grep -q '^#	DispatchValues false$' "$conf" || fail "$conf: no DispatchValues false to enable"
grep -q '^# Label "cluster" ' "$conf" || fail "$conf: no commented Label \"cluster\""
grep -q '^#LoadPlugin memcg_bpf$' "$conf" || fail "$conf: no commented LoadPlugin line"
grep -q '^[^#]' "$conf" && fail "$conf has active lines as shipped"
man -w collectd-memcg_bpf >/dev/null 2>&1 || fail "man -w collectd-memcg_bpf finds no page"
/usr/bin/memcg-bpf-sample --list-stats >/dev/null || fail "installed memcg-bpf-sample --list-stats"
step_end "$(wc -l <"$work/dpkg-L") paths as expected, conffile registered"

step_start "collectd -t / -T with the shipped snippet"
mkdir -p "$work/collectd/conf.d"
collectd_conf "$work/collectd" "$work/collectd/conf.d" "Interval 1" >"$work/collectd/collectd.conf"
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

# ---- 4. acceptance: the system's collectd ships to a local Prometheus
step_start "acceptance: enable the snippet, restart collectd, series in Prometheus"
# the running collectd goes into the ledger last: it is stopped first,
# before its RRD files and its package go
[ -d /var/lib/collectd/rrd ] || ledger_add dir /var/lib/collectd/rrd
if ! dpkg-query -W -f='${Status}' collectd 2>/dev/null | grep -q 'ok installed'; then
	ledger_add package collectd
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends collectd \
		>"$work/apt-install-collectd.log" 2>&1 || { cat "$work/apt-install-collectd.log"; fail "apt-get install collectd"; }
fi
ledger_add collectd started
grep -q '^<Include "/etc/collectd/collectd.conf.d">' /etc/collectd/collectd.conf ||
	fail "/etc/collectd/collectd.conf does not include collectd.conf.d"
# Prometheus with the remote-write receiver and the rules (a test copy
# evaluated every 2 s: the group's "interval: 1m" would make the first
# recording-rule value wait up to a minute; the [5m] windows stay, rate()
# and increase() need only two samples in them).
mkdir -p "$work/prom"
sed 's/^\(    interval: \)1m$/\12s/' "$src/packaging/dashboard/memcg_bpf.rules.yml" >"$work/prom/rules.yml"
grep -q '^    interval: 2s$' "$work/prom/rules.yml" || fail "rules: no group interval to shorten"
cat >"$work/prom/prometheus.yml" <<PROM
global:
  evaluation_interval: 2s
rule_files:
  - $work/prom/rules.yml
  - $src/packaging/dashboard/memcg_bpf.cadvisor.rules.yml
PROM
start_prometheus "$work/prom"
# What an operator does: enable the snippet, then restart collectd.
enable_snippet "$conf" "$port"
collectd_pid=
if [ $systemd = 1 ]; then
	# Type=notify: systemctl returns once collectd is up
	systemctl restart collectd.service >"$work/collectd-restart.log" 2>&1 ||
		{ cat "$work/collectd-restart.log"; systemctl status collectd.service --no-pager | tail -20; fail "systemctl restart collectd.service"; }
	collectd_pid=$(systemctl show collectd.service -p MainPID --value)
	[ -n "$collectd_pid" ] && [ "$collectd_pid" != 0 ] || fail "collectd.service has no MainPID after the restart"
	# what the unit and the drop-in gave the running collectd
	nofile=$(awk '/^Max open files/ { print $4 }' "/proc/$collectd_pid/limits")
	[ "$nofile" = 65536 ] || fail "collectd.service's collectd has an open-file limit of $nofile, not the drop-in's 65536"
	capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$collectd_pid/status")
	# CAP_PERFMON is 38, CAP_BPF 39
	[ $(((0x$capeff >> 38) & 3)) = 3 ] || fail "collectd.service's collectd lacks CAP_BPF/CAP_PERFMON (CapEff $capeff)"
	echo "packagecheck:   collectd.service: MainPID $collectd_pid, open files $nofile, CapEff $capeff (has CAP_BPF, CAP_PERFMON)"
else
	/etc/init.d/collectd restart >"$work/collectd-restart.log" 2>&1 || { cat "$work/collectd-restart.log"; fail "/etc/init.d/collectd restart"; }
	# collectdmon writes the pid file and starts collectd after the init script
	# returns: give it up to 10 s
	i=0
	until [ -s /var/run/collectd.pid ] && kill -0 "$(cat /var/run/collectd.pid)" 2>/dev/null &&
		collectd_pid=$(ps -o pid= --ppid "$(cat /var/run/collectd.pid)" | tr -d ' ') && [ -n "$collectd_pid" ]; do
		[ $i -lt 100 ] || { cat "$work/collectd-restart.log"; fail "/etc/init.d/collectd restart: no collectd running after 10 s"; }
		sleep 0.1; i=$((i + 1))
	done
fi
# collectd's Hostname: FQDNLookup true in Debian's collectd.conf
if ! host_series_arrive; then
	cat "$work/prom/prometheus.log" | tail -20
	collectd -T -C /etc/collectd/collectd.conf 2>&1 | grep -i memcg | tail -20
	fail "no memcg_* series of host $hosts in Prometheus 60 s after the restart"
fi
# the spool directory: owned by the user collectd runs as, 0700, in use
collectd_user=$(ps -o user= -p "$collectd_pid" | tr -d ' ')
[ -n "$collectd_user" ] || fail "no collectd process $collectd_pid"
[ "$(stat -c '%U %a' "$spool")" = "$collectd_user 700" ] ||
	fail "$spool: $(stat -c '%U:%G %a' "$spool"); collectd runs as $collectd_user (want owner $collectd_user, mode 0700)"
# the running plugin holds an exclusive flock on SPOOLDIR/lock
[ -f "$spool/lock" ] || fail "$spool/lock missing: the plugin does not use the shipped SpoolDir"
! flock -n "$spool/lock" true || fail "$spool/lock is not locked: the running plugin does not use the shipped SpoolDir"
step_end "$n memcg_* series of host $host in Prometheus ($prom) $(($(date +%s) - t_ship)) s after the restart; $spool: $collectd_user, 0700, locked by the plugin"

# ---- 5. the dashboard and the rules against that data
step_start "dashboard panels and recording rules through the query API"
# stats the running kernel does not give (cgroup v1: those without a v1
# equivalent, "-" in the V1 column of --list-stats). query-dashboard.py lets
# a query be empty only where its EXEMPT table names it for such a stat.
missing=
if [ ! -e /sys/fs/cgroup/cgroup.controllers ] && [ -d /sys/fs/cgroup/memory ]; then
	missing=$(/usr/bin/memcg-bpf-sample --list-stats |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "V1") v1 = i; next }
		     v1 && $v1 == "-" { printf "%s,", $1 }')
	[ -n "$missing" ] || fail "memcg-bpf-sample --list-stats: no V1 column, or no stat without a v1 equivalent"
fi
python3 "$src/tests/packaging/query-dashboard.py" --prom "$prom" --host "$host" \
	--dashboard "$src/packaging/dashboard/memcg_bpf.grafana.json" --rules "$work/prom/rules.yml" \
	--rules "$src/packaging/dashboard/memcg_bpf.cadvisor.rules.yml" --rate-interval 30s --range 5m --missing "$missing" --deadline 90 >"$work/queries.txt" 2>&1 ||
	{ cat "$work/queries.txt"; fail "dashboard queries (query-dashboard.py)"; }
sed 's/^/packagecheck:   /' "$work/queries.txt"
PROMTOOL=$promtool "$src/packaging/dashboard/check.sh" >"$work/promtool.txt" 2>&1 ||
	{ cat "$work/promtool.txt"; fail "promtool check rules / test rules (packaging/dashboard/check.sh)"; }
step_end "$(tail -n 1 "$work/queries.txt"); promtool check+test rules ok"

# ---- 6. RRD files do not follow the cgroups
rrd_wait=${MEMCG_BPF_RRD_WAIT:-20}
step_start "RRD files on the stock collectd.conf, 50 cgroups added and shipped, ${rrd_wait} s later and a flush"
rrd=/var/lib/collectd/rrd
grep -q '^LoadPlugin rrdtool$' /etc/collectd/collectd.conf || fail "Debian's collectd.conf does not load rrdtool: nothing to test"
rrd_list() { (cd "$rrd" && find . -type f -name '*.rrd' | sort); }
# a minute after the restart every stock plugin has written its files
while [ $(($(date +%s) - t_ship)) -lt 60 ]; do sleep 1; done
rrd_list >"$work/rrd-before"
cgroups_before=$(prom_value "count(memcg_anon_bytes{host=\"$host\"})")
# 50 cgroups more, under the memory controller's root (v2 or v1)
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then memroot=/sys/fs/cgroup; else memroot=/sys/fs/cgroup/memory; fi
test_cgroup=$memroot/memcg-packagecheck.$$
ledger_add cgroup "$test_cgroup"
mkdir "$test_cgroup" || fail "mkdir $test_cgroup"
[ "$memroot" = /sys/fs/cgroup/memory ] || echo +memory >"$test_cgroup/cgroup.subtree_control"
for i in $(seq 50); do mkdir "$test_cgroup/c$i"; done
t_cg=$(date +%s)
until [ "$(prom_value "count(memcg_anon_bytes{host=\"$host\", cgroup=~\"/memcg-packagecheck.*\"})")" = 51 ]; do
	[ $(($(date +%s) - t_cg)) -lt 60 ] || fail "the plugin did not ship the 51 cgroups of $test_cgroup within 60 s"
	sleep 1
done
cgroups_after=$(prom_value "count(memcg_anon_bytes{host=\"$host\"})")
sleep "$rrd_wait"
# collectd flushes every write plugin on SIGUSR1: rrdtool writes whatever it holds
kill -USR1 "$collectd_pid" || fail "cannot signal collectd ($collectd_pid) to flush"
sleep 2
kill -0 "$collectd_pid" 2>/dev/null || fail "collectd ($collectd_pid) did not survive SIGUSR1 (the flush)"
rrd_list >"$work/rrd-after"
n_before=$(wc -l <"$work/rrd-before")
n_after=$(wc -l <"$work/rrd-after")
self_before=$(grep -c '^\./[^/]*/memcg_bpf-self/' "$work/rrd-before" || true)
self_after=$(grep -c '^\./[^/]*/memcg_bpf-self/' "$work/rrd-after" || true)
# per-cgroup values would be memcg_bpf-<cgroup>/<type>-<stat>.rrd, one per cgroup and stat
per_cgroup=$(grep '^\./[^/]*/memcg_bpf' "$work/rrd-after" | grep -v '^\./[^/]*/memcg_bpf-self/' || true)
[ -z "$per_cgroup" ] || fail "per-cgroup RRD files: $(echo "$per_cgroup" | head -5) ($(echo "$per_cgroup" | wc -l) in all)"
[ "$self_before" -gt 0 ] || fail "no memcg_bpf-self RRD files: is rrdtool writing at all? ($(head -3 "$work/rrd-before"))"
[ "$self_after" = "$self_before" ] || fail "memcg_bpf-self had $self_before RRD files, now $self_after"
added=$(comm -13 "$work/rrd-before" "$work/rrd-after")
[ -z "$added" ] || echo "packagecheck:   RRD files added by other plugins meanwhile: $(echo "$added" | tr '\n' ' ')"
# 51 more cgroups, each with at least one stat, would add 51 files at least
[ $((n_after - n_before)) -lt 51 ] || fail "RRD files grew from $n_before to $n_after with the cgroups ($cgroups_before -> $cgroups_after)"
undo cgroup "$test_cgroup"
step_end "$n_after RRD files under $rrd after $(($(date +%s) - t_ship)) s ($n_before a minute after the restart; $self_after of them memcg_bpf-self); cgroups shipped: $cgroups_before, then $cgroups_after"

undo collectd started
stop_pid "$prom_pid"
prom_pid=

step_start "apt-get purge $pkg"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" >"$work/apt-purge.log" 2>&1 || { cat "$work/apt-purge.log"; fail "apt-get purge"; }
undo package "$pkg" # purged: only its ledger entry goes
for f in /usr/lib/collectd/memcg_bpf.so /usr/bin/memcg-bpf-sample "$conf" "$spool"; do
	[ ! -e "$f" ] || fail "$f is still there after purge"
done
step_end "purged, nothing left"

# ---- 7. RPM
step_start "build the RPM (packaging/build-rpm.sh, rpmbuild --nodeps)"
# from the same make dist tarball the .deb was built from
tarball=$(ls "$work"/debwork/dist-build/memcg_bpf-*.tar.gz)
MEMCG_BPF_TARBALL="$tarball" MEMCG_BPF_WORKDIR="$work/rpmwork" "$src/packaging/build-rpm.sh" "$work/rpm" >"$work/build-rpm.out" 2>&1 ||
	{ cat "$work/build-rpm.out"; fail "build-rpm.sh"; }
rpmfile=$(ls "$work"/rpm/$pkg-[0-9]*.x86_64.rpm)
# rpmlint: nothing but what packaging/rpm/rpmlint.toml filters, each with its reason
grep -q ' 0 errors, 0 warnings' "$work/rpm/rpmlint.txt" 2>/dev/null ||
	{ cat "$work/rpm/rpmlint.txt" 2>/dev/null; fail "rpmlint reports what packaging/rpm/rpmlint.toml does not explain: fix it, or filter it there with its reason (packaging/rpm/README.rpmlint)"; }
rpm -qlp "$rpmfile" 2>/dev/null | grep -v '^/usr/lib/\.build-id' | sort >"$work/rpm-ql"
cat >"$work/rpm-expected" <<LIST
/etc/collectd.d/memcg_bpf.conf
/usr/bin/memcg-bpf-sample
/usr/lib64/collectd/memcg_bpf.so
/usr/share/doc/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)
/usr/share/doc/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)/README
/usr/share/licenses/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)
/usr/share/licenses/$pkg-$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)/COPYING
/usr/share/man/man1/memcg-bpf-sample.1.gz
/usr/share/man/man5/collectd-memcg_bpf.5.gz
/usr/lib/systemd/system/collectd.service.d
/usr/lib/systemd/system/collectd.service.d/memcg_bpf.conf
/var/lib/collectd/memcg_bpf-spool
LIST
sort -o "$work/rpm-expected" "$work/rpm-expected"
diff -u "$work/rpm-expected" "$work/rpm-ql" || fail "rpm -qlp $(basename "$rpmfile") differs from the expected layout"
rpm -qpc "$rpmfile" 2>/dev/null | grep -qx /etc/collectd.d/memcg_bpf.conf || fail "memcg_bpf.conf is not %config in the RPM"
rpm -qp --requires "$rpmfile" 2>/dev/null | grep -q '^collectd >= ' || fail "the RPM does not require collectd"
# the spool directory: 0700, root; the drop-in: LimitNOFILE and the two capabilities
rpm -qlvp "$rpmfile" 2>/dev/null | grep -q '^drwx------ .* root *root .* /var/lib/collectd/memcg_bpf-spool$' ||
	fail "the RPM's /var/lib/collectd/memcg_bpf-spool is not drwx------ root root: $(rpm -qlvp "$rpmfile" 2>/dev/null | grep spool)"
mkdir -p "$work/rpm/x"
(cd "$work/rpm/x" && rpm2cpio "$rpmfile" | cpio -idm --quiet) || fail "rpm2cpio $(basename "$rpmfile")"
stripped "$work/rpm/x" usr/lib64/collectd/memcg_bpf.so "the RPM"
rpm_dropin=$work/rpm/x/usr/lib/systemd/system/collectd.service.d/memcg_bpf.conf
grep -qx 'LimitNOFILE=65536' "$rpm_dropin" || fail "the RPM's drop-in does not raise LimitNOFILE"
grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' "$rpm_dropin" || fail "the RPM's drop-in does not add CAP_BPF CAP_PERFMON"
# offline: on a unit that drops every capability, as collectd's upstream
# contrib/systemd.collectd.service does ("CapabilityBoundingSet=" and
# ProtectSystem=full, its lines that matter here), the drop-in gives back
# CAP_BPF and nothing else
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$work/unit-rpm/usr/lib/systemd/system/collectd.service.d"
	printf '%s\n' '[Unit]' 'Description=collectd as its upstream unit runs it' '[Service]' \
		'ExecStart=/usr/sbin/collectd' 'Type=notify' 'ProtectSystem=full' 'ProtectHome=true' \
		'CapabilityBoundingSet=' >"$work/unit-rpm/usr/lib/systemd/system/collectd.service"
	cp "$rpm_dropin" "$work/unit-rpm/usr/lib/systemd/system/collectd.service.d/"
	unit_keeps "$work/unit-rpm" CAP_BPF ||
		fail "upstream-style collectd.service + the RPM's drop-in: no CAP_BPF ($(cat "$work/analyze.err"))"
	! unit_keeps "$work/unit-rpm" CAP_SYS_ADMIN ||
		fail "upstream-style collectd.service + the RPM's drop-in: CAP_SYS_ADMIN is back (the set should be CAP_BPF CAP_PERFMON)"
fi
rpm_version=$(rpm -qp --qf '%{VERSION}' "$rpmfile" 2>/dev/null)
for page in usr/share/man/man5/collectd-memcg_bpf.5.gz usr/share/man/man1/memcg-bpf-sample.1.gz; do
	th=$(zcat "$work/rpm/x/$page" | grep -m1 '^\.TH ')
	case $th in *"\"memcg_bpf $rpm_version\""*) ;; *) fail "RPM /$page: the footer does not name memcg_bpf $rpm_version: $th" ;; esac
done
step_end "$(basename "$rpmfile"): layout as expected, programs stripped, spool 0700 root, drop-in with LimitNOFILE and CAP_BPF CAP_PERFMON, man pages name $rpm_version; rpmlint: $(tail -n 1 "$work/rpm/rpmlint.txt" 2>/dev/null | sed 's/ *has taken.*//'), every filtered message explained"

# ---- 7b. the aarch64 RPM, cross-built from the same tarball (issue 35)
if [ "$arm64" = 1 ]; then
	step_start "cross-build the aarch64 RPM (packaging/build-rpm.sh OUT aarch64)"
	MEMCG_BPF_TARBALL="$tarball" MEMCG_BPF_WORKDIR="$work/rpmwork-aarch64" "$src/packaging/build-rpm.sh" "$work/rpm-aarch64" aarch64 \
		>"$work/build-rpm-aarch64.out" 2>&1 || { cat "$work/build-rpm-aarch64.out"; fail "build-rpm.sh aarch64"; }
	rpm_aarch64=$(ls "$work"/rpm-aarch64/$pkg-[0-9]*.aarch64.rpm)
	[ "$(rpm -qp --qf '%{ARCH}' "$rpm_aarch64" 2>/dev/null)" = aarch64 ] || fail "$(basename "$rpm_aarch64") is not an aarch64 package"
	grep -q ' 0 errors, 0 warnings' "$work/rpm-aarch64/rpmlint.txt" 2>/dev/null ||
		{ cat "$work/rpm-aarch64/rpmlint.txt" 2>/dev/null; fail "rpmlint on the aarch64 RPM reports what packaging/rpm/rpmlint.toml does not explain"; }
	rpm -qlp "$rpm_aarch64" 2>/dev/null | grep -v '^/usr/lib/\.build-id' | sort >"$work/rpm-ql-aarch64"
	diff -u "$work/rpm-ql" "$work/rpm-ql-aarch64" || fail "the aarch64 RPM's files differ from the x86_64 RPM's"
	mkdir -p "$work/rpm-aarch64/x"
	(cd "$work/rpm-aarch64/x" && rpm2cpio "$rpm_aarch64" | cpio -idm --quiet) || fail "rpm2cpio $(basename "$rpm_aarch64")"
	arm64_built "$work/rpm-aarch64/x" usr/lib64/collectd/memcg_bpf.so "$work/rpm-aarch64/build.log" "the aarch64 RPM"
	stripped "$work/rpm-aarch64/x" usr/lib64/collectd/memcg_bpf.so "the aarch64 RPM"
	step_end "$(basename "$rpm_aarch64"): the x86_64 RPM's $(wc -l <"$work/rpm-ql-aarch64") paths, AArch64 programs, stripped, BPF objects for arm64; rpmlint: $(tail -n 1 "$work/rpm-aarch64/rpmlint.txt" 2>/dev/null | sed 's/ *has taken.*//')"
fi

echo "packagecheck: all ok in $(($(date +%s) - t_all)) s"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kube-mixin.sh OUTDIR: renders the kubernetes-mixin's recording rules and
# dashboard memory queries (tests/vm/kube-mixin.jsonnet, from the vendored
# source in tests/data/kubernetes-mixin) into OUTDIR with jsonnet, and
# prints the SRC=DEST pairs tests/vm/run.sh puts into the initramfs for the
# guest test kube_mixin: those two files and the shipped
# packaging/dashboard/memcg_bpf.cadvisor.rules.yml. Prints nothing and
# fails, saying why on stderr, without jsonnet (apt-get install jsonnet;
# scripts/deps.sh): kube_mixin then fails, naming the missing file.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:?usage: kube-mixin.sh OUTDIR}
command -v jsonnet >/dev/null || { echo "vm: kube-mixin.sh: no jsonnet (apt-get install jsonnet): kube_mixin will fail" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
if ! jsonnet -J "$top/tests/data/kubernetes-mixin" -S -m "$out" "$here/kube-mixin.jsonnet" > "$out/files" 2> "$out/jsonnet.log"; then
	echo "vm: kube-mixin.sh: jsonnet failed: $(head -n 3 "$out/jsonnet.log")" >&2
	exit 1
fi
echo "$out/rules.yml=/vmtest/kube-mixin.rules.yml $out/queries=/vmtest/kube-mixin.queries" \
	"$top/packaging/dashboard/memcg_bpf.cadvisor.rules.yml=/vmtest/memcg_bpf.cadvisor.rules.yml"

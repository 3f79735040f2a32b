#!/bin/bash
# TLS and auth against a loopback HTTPS receiver (wire_receiver.py with
# python3's ssl), with a CA, server and client certificates made by openssl
# here, for this run only. collectd runs with the plugin; checked:
#   - VerifyPeer true + CACert: the server is accepted, requests arrive;
#   - mTLS: the ClientCert is presented (the receiver requires one and
#     records its CN); a bearer token arrives as "Authorization: Bearer ...";
#   - basic auth arrives as "Authorization: Basic base64(user:password)";
#   - a server certificate from another CA is refused with curl's message in
#     a warning, the request is retried (not dropped), and it arrives once the
#     receiver shows a certificate of the configured CA;
#   - neither the token nor the password ever appears in collectd's log.
set -u
. "$(dirname "$0")/lib.sh"
setup
command -v python3 >/dev/null || skip_all "python3 not installed"
command -v openssl >/dev/null || skip_all "openssl not installed"
trap 'stop_daemon; stop_receivers' EXIT

C=$T/certs
mkdir -p "$C"
TOKEN="tok-$(openssl rand -hex 12)"
PASSWORD="pw-$(openssl rand -hex 12)"
echo "$TOKEN" >"$C/token"
printf '%s\n' "$PASSWORD" >"$C/password"
chmod 600 "$C/token" "$C/password"

# mkcert NAME CN CA [SAN]: an EC key and a certificate signed by CA (or self-signed: CA "")
mkcert() {
	local name=$1 cn=$2 ca=$3 san=${4:-}
	if [ -z "$ca" ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
			-subj "/CN=$cn" -keyout "$C/$name.key" -out "$C/$name.pem" 2>>"$C/openssl.log"
		return
	fi
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj "/CN=$cn" -keyout "$C/$name.key" -out "$C/$name.csr" 2>>"$C/openssl.log" || return 1
	: >"$C/$name.ext"
	[ -n "$san" ] && echo "subjectAltName=$san" >"$C/$name.ext"
	openssl x509 -req -in "$C/$name.csr" -CA "$C/$ca.pem" -CAkey "$C/$ca.key" -CAcreateserial \
		-days 2 -extfile "$C/$name.ext" -out "$C/$name.pem" 2>>"$C/openssl.log"
}
mkcert ca "memcg_bpf test CA" "" &&
	mkcert server 127.0.0.1 ca "IP:127.0.0.1,DNS:localhost" &&
	mkcert client memcg-bpf-client ca &&
	mkcert otherca "some other CA" "" &&
	mkcert otherserver 127.0.0.1 otherca "IP:127.0.0.1,DNS:localhost" ||
	{ cat "$C/openssl.log"; skip_all "openssl could not make the test certificates"; }

# receiver NAME PORT CERT [CLIENT_CA]: an HTTPS wire_receiver; sets RPORT
receiver() {
	local name=$1 port=$2 cert=$3 client_ca=${4:-} i args=()
	[ -n "$client_ca" ] && args=(--tls-client-ca "$C/$client_ca.pem")
	rm -f "$T/$name.port"
	python3 "$SENDER_TESTS/wire_receiver.py" --port "$port" --port-file "$T/$name.port" \
		--log "$T/$name.jsonl" --tls-cert "$C/$cert.pem" --tls-key "$C/$cert.key" "${args[@]}" \
		2>"$T/$name.receiver.err" &
	receiver_pids+=($!)
	for ((i = 0; i < 100; i++)); do [ -f "$T/$name.port" ] && break; sleep 0.05; done
	RPORT=$(cat "$T/$name.port" 2>/dev/null)
	[ -n "$RPORT" ]
}

# arrived LOG KEY=VALUE...: every request was accepted, decoded without wire
# errors and carries these fields
arrived() {
	python3 - "$@" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
want = dict(a.split("=", 1) for a in sys.argv[2:])
ok = len(reqs) > 0
for r in reqs:
    for k, v in want.items():
        if str(r.get(k)) != v:
            print("# request field %s=%r, wanted %r" % (k, r.get(k), v)); ok = False
    for e in r["errors"][:5]:
        print("# wire: " + e); ok = False
print("# %d requests" % len(reqs))
sys.exit(0 if ok else 1)
PY
}

# no_secret DIR: neither secret in the daemon's log or output
no_secret() {
	! grep -qF -e "$TOKEN" -e "$PASSWORD" "$1/collectd.log" "$1/stdout"
}

# wait_log FILE ERE TIMEOUT_S: until the daemon logs a matching line
wait_log() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		alive || return 1
		sleep 0.1
	done
	return 1
}

# self_value DIR TYPE-INSTANCE: the last value of a sender self metric in the csv
self_value() {
	local f
	f=$(csv_file "$1" self "$2")
	[ -f "$f" ] && tail -n 1 "$f" | cut -d, -f2 | cut -d. -f1
}

# ---- 1: VerifyPeer + CACert, mTLS client certificate, bearer token
receiver mtls 0 server ca || { not_ok "https receiver starts"; finish; }
run_collectd mtls "URL \"https://127.0.0.1:$RPORT/api/v1/write\"
VerifyPeer true
CACert \"$C/ca.pem\"
ClientCert \"$C/client.pem\"
ClientKey \"$C/client.key\"
BearerTokenFile \"$C/token\""
stop_receivers
check "mTLS + bearer: collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "mTLS + bearer: no errors or sender warnings logged" log_clean "$RUN_DIR"
check "mTLS + bearer: requests accepted over TLS with the client certificate and the token" \
	arrived "$T/mtls.jsonl" tls=True status=204 client_cn=memcg-bpf-client "authorization=Bearer $TOKEN"
check "mTLS + bearer: the token is not in collectd's log" no_secret "$RUN_DIR"

# ---- 2: basic auth over TLS (no client certificate asked for)
receiver basic 0 server || { not_ok "https receiver starts"; finish; }
run_collectd basic "URL \"https://127.0.0.1:$RPORT/api/v1/write\"
CACert \"$C/ca.pem\"
BasicAuthUser \"memcg\"
BasicAuthPasswordFile \"$C/password\""
stop_receivers
check "basic auth: collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "basic auth: no errors or sender warnings logged" log_clean "$RUN_DIR"
check "basic auth: Authorization: Basic base64(user:password) on every request" \
	arrived "$T/basic.jsonl" tls=True status=204 \
	"authorization=Basic $(printf 'memcg:%s' "$PASSWORD" | base64 -w0)"
check "basic auth: the password is not in collectd's log" no_secret "$RUN_DIR"

# ---- 3: a server certificate of another CA: refused, retried, delivered once it is right
receiver wrongca 0 otherserver || { not_ok "https receiver starts"; finish; }
port=$RPORT
dir=$(write_conf wrongca 1 "" "URL \"https://127.0.0.1:$port/api/v1/write\"
CACert \"$C/ca.pem\"
BearerTokenFile \"$C/token\"
DispatchValues true")
start_daemon "$dir"
check "wrong CA: the refusal is logged with curl's reason and retried" \
	wait_log "$dir/collectd.log" 'SSL certificate problem.*retrying' 30
first_ts=$(head -n 2 "$(csv_file "$dir" root bytes-anon)" 2>/dev/null | tail -n 1 | cut -d, -f1 | cut -d. -f1)
sleep 3 # a few more intervals queue up behind the refused request
check "wrong CA: nothing arrived" test ! -s "$T/wrongca.jsonl"
stop_receivers
# the same port, now with the certificate the plugin trusts
receiver fixed "$port" server || not_ok "https receiver restarts on port $port"
for ((i = 0; i < 200; i++)); do [ -s "$T/fixed.jsonl" ] && break; sleep 0.1; done
sleep 1.5
stop_daemon
check "wrong CA: collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "wrong CA: the refused request arrived after the retry, with every later interval" python3 - \
	"$T/fixed.jsonl" "$first_ts" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
first = int(sys.argv[2]) * 1000 if sys.argv[2] else 0
ts = sorted({s[2] for r in reqs for s in r["series"]})
errs = [e for r in reqs for e in r["errors"]]
print("# %d requests, %d timestamps, first sampled %d, first arrived %s" % (len(reqs), len(ts), first, ts[:1]))
sys.exit(0 if ts and first and ts[0] // 1000 == first // 1000 and len(ts) >= 3 and not errs else 1)
PY
retries=$(self_value "$dir" derive-sender_retries) rejected=$(self_value "$dir" derive-sender_dropped_batches-rejected)
check "wrong CA: retries counted ($retries), nothing dropped as rejected (${rejected:-?})" \
	test "${retries:-0}" -ge 1 -a "${rejected:-x}" = 0
check "wrong CA: no error logged (a refused certificate is retried, not fatal)" \
	bash -c "! grep -q '\[error\]' '$dir/collectd.log'"
check "wrong CA: the token is not in collectd's log" no_secret "$dir"
grep -m1 'SSL certificate problem' "$dir/collectd.log" | sed 's/^/# /'
finish

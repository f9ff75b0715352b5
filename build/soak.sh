#!/usr/bin/env bash
# The heavy reliability run of docs/RELIABILITY.md: the end-to-end tests
# under tests/ at full size (64 MiB and 10,000 exchanges through the lossy
# proxy, 1,000 connections, floods at the spec's default stream budgets),
# the soak at a sustained rate, then every decoder's fuzz target for
# minutes each. Prints every recorded figure at the end.
#
#   ./build/soak.sh                 # 10-minute soak, 5 minutes per fuzz target
#   ./build/soak.sh 2m 60s          # shorter: soak duration, fuzz time per target
#
# Runs without -race, one package at a time (-p 1): the figures are the
# library's, not the race detector's or a neighbouring package's (the test
# command runs the light sizes under -race).
set -euo pipefail
cd "$(dirname "$0")/.."

soak="${1:-${WEIDA_SOAK:-10m}}"
fuzz="${2:-${FUZZTIME:-5m}}"
log=$(mktemp -t weida-soak.XXXXXX)
echo "== heavy end-to-end tests, soak $soak (log: $log)"
set +e
WEIDA_HEAVY=1 WEIDA_SOAK="$soak" go test -p 1 -count=1 -v -timeout 90m ./tests/... 2>&1 | tee "$log" |
	grep -E '^(=== RUN|--- (PASS|FAIL|SKIP)|ok|FAIL|PASS)' | grep -v '^=== RUN'
status=${PIPESTATUS[0]}
echo "== broker soak: one consumer connection, 20 subscriptions, 100,000 messages, reports withheld"
WEIDA_HEAVY=1 go test -count=1 -v -timeout 20m -run '^TestSoakOneConnectionTwentySubscriptions$' ./core/broker/ 2>&1 |
	tee -a "$log" | grep -E '^(--- (PASS|FAIL)|ok|FAIL)'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "== power loss: 200 cuts per durability (core/broker/store)"
WEIDA_POWERCUTS=200 go test -count=1 -v -run '^TestPowerLoss' ./core/broker/store/ 2>&1 |
	tee -a "$log" | grep -E '^(--- (PASS|FAIL)|ok|FAIL)'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "== power loss over QUIC: 50 cuts per durability (core/broker: producers' certificates)"
WEIDA_BROKER_POWERCUTS=50 go test -count=1 -v -run '^TestPowerLossOverQUIC$' ./core/broker/ 2>&1 |
	tee -a "$log" | grep -E '^(--- (PASS|FAIL)|ok|FAIL)|figure:'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
set -e

echo
echo "== fuzz: every decoder target for $fuzz"
start=$(date +%s)
./build/fuzz.sh "$fuzz"
echo "fuzz: $(( $(date +%s) - start ))s in all"

echo
echo "== figures"
grep -E 'figure: ' "$log" | sed -E 's/^ *[a-z_]+_test\.go:[0-9]+: figure: /  /'
if [ "$status" -ne 0 ]; then
	echo "soak: the heavy tests FAILED (see $log)" >&2
	exit "$status"
fi
echo "soak: all heavy tests passed"

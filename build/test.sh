#!/usr/bin/env bash
# Runs the whole test suite: what CI runs (.ci/run calls this script).
# Needs Go (and, as the bindings land, gcc, Python 3 and Node 20); anything
# else it installs itself.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 -timeout 20m ./...

echo "== short fuzz pass (${FUZZTIME:=150000x} per decoder)"
./build/fuzz.sh "$FUZZTIME"

echo "== C ABI: libweida, the header alone, C examples (also under ASan), 3 s stress"
./tests/capi/run.sh quick

echo "== benchmark harness smoke (weida, raw quic-go, NATS, ZeroMQ with tiny counts)"
./build/bench.sh --smoke

echo "== distribution (install.sh + pkg-config, one version, refusals of bad libraries and platforms)"
tests/dist/run.sh

echo "== the READMEs' code blocks (Go, Python, JavaScript, C) run as programs"
tests/readme/run.sh

echo "== docs/GUIDE.md's programs run against the built artifacts"
tests/docs/guide.sh

echo "== node (npm pack, install into an empty project, node --test)"
tests/node/run.sh

# Last, so the run closes on the Python runner's "N passed, N failed" line.
echo "== python (wheel, fresh venv, smoke + tests)"
tests/python/run.sh

#!/usr/bin/env bash
# A short tour of weida: every messaging pattern, end to end over QUIC on
# loopback, in one command. It builds what it runs (the weida CLI and the
# weida-tour program) and needs only Go; the Go module proxy supplies the
# dependencies. Each step checks its outcome, so exit 0 means every pattern
# behaved as specified.
#
#   Req/Rep    weida serve --echo  + weida request
#   Push/Pull  weida serve --sink  + weida send
#   Pub/Sub    weida serve --pub   + weida sub (filters, line and nul framing)
#   refusals   a wrong key (exit 6), an unknown path (exit 4)
#   Queue      weida broker + weida-tour queue (producer -> queue -> consumer,
#              ACCEPTED, STORED and PROCESSED arriving at the producer), with
#              access rules on: weida keygen, listed keys, an unlisted one refused
#   Cluster    three weida broker --cluster members + weida-tour cluster (the
#              leader SIGKILLed mid-stream, nothing certified lost)
#   PAIR, SURVEY, BUS   weida-tour (the CLI has no verb for them)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

bin="$PWD/bin"
mkdir -p "$bin"
weida="$bin/weida"

work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; } # a command, as a user would type it
fail() {
	echo "demo: $*" >&2
	exit 1
}

# start NAME LABEL SHOWN ARGS...: starts `weida ARGS...` in the background
# and sets $addr to the first address it prints, which the commands shown
# below call $LABEL; SHOWN is the command as a user would type it. The rest
# of its stdout goes on into $work/NAME.out (a sink's payloads), its stderr
# into $work/NAME.log.
start() {
	local name=$1 label=$2 shown=$3 fd
	shift 3
	mkfifo "$work/$name.fifo"
	"$weida" "$@" >"$work/$name.fifo" 2>"$work/$name.log" &
	pids+=($!)
	eval "${name}_pid=$!"
	exec {fd}<"$work/$name.fifo"
	read -r addr <&"$fd" || fail "weida $1 printed no address: $(cat "$work/$name.log")"
	cat <&"$fd" >"$work/$name.out" &
	pids+=($!)
	eval "${name}_copier=$!"
	exec {fd}<&-
	show "$shown &"
	echo "$addr    <- \$$label below: the client's whole configuration"
}

# serve NAME ROLE PATH LABEL: start for `weida serve ROLE
# weida://127.0.0.1:0/PATH`.
serve() {
	local url="weida://127.0.0.1:0/$3"
	start "$1" "$4" "weida serve $2 '$url'" serve "$2" "$url"
}

# stop NAME: ends a started process with SIGTERM, its ordinary end, checks
# it exited 0, and waits until everything it wrote to stdout is in
# $work/NAME.out.
stop() {
	local pid_var="${1}_pid" copier_var="${1}_copier" code=0
	kill -TERM "${!pid_var}"
	wait "${!pid_var}" || code=$?
	[ "$code" = 0 ] || fail "$1 exited $code on SIGTERM: $(cat "$work/$1.log")"
	wait "${!copier_var}"
}

# expect_exit CODE COMMAND...: runs a command that must fail with CODE.
expect_exit() {
	local want=$1 code=0
	shift
	"$@" || code=$?
	echo "exit $code"
	[ "$code" = "$want" ] || fail "expected exit $want from: $*"
}

step "building the weida CLI and the tour program"
go build -o "$weida" ./cmd/weida
go build -o "$bin/weida-tour" ./cmd/weida-tour
echo "built $weida and $bin/weida-tour"

step "Req/Rep: serve --echo answers each request with its own body"
serve echo --echo echo ECHO
echo_addr=$addr
show "echo 'hello weida' | weida request \"\$ECHO\""
reply=$(echo 'hello weida' | "$weida" request "$echo_addr")
echo "$reply"
[ "$reply" = "hello weida" ] || fail "unexpected reply: $reply"
head -c $((16 << 20)) /dev/urandom >"$work/big"
show "weida request \"\$ECHO\" big.bin | cmp - big.bin"
"$weida" request "$echo_addr" "$work/big" | cmp - "$work/big" || fail "the 16 MiB echo differs"
echo "16 MiB streamed through the echo and back byte-exact"

step "refusals: a wrong key names the key that answered (exit 6); an unknown path (exit 4)"
wrong="weida://sha256:$(printf '0%.0s' $(seq 64))@${echo_addr#*@}"
show "echo x | weida request 'weida://sha256:000…000@${echo_addr#*@}'"
expect_exit 6 "$weida" request "$wrong" <<<x
show "echo x | weida request \"\${ECHO%/echo}/nowhere\""
expect_exit 4 "$weida" request "${echo_addr%/echo}/nowhere" <<<x
stop echo
echo "the echo's log:"
sed 's/^/  /' "$work/echo.log"

step "Push/Pull: send pushes one transfer; serve --sink writes each payload to its stdout"
serve sink --sink sink SINK
sink_addr=$addr
show "echo 'first payload' | weida send \"\$SINK\""
echo 'first payload' | "$weida" send "$sink_addr"
head -c $((4 << 20)) /dev/urandom >"$work/four"
show "weida send \"\$SINK\" four.bin"
"$weida" send "$sink_addr" "$work/four"
stop sink
{
	echo 'first payload'
	cat "$work/four"
} | cmp - "$work/sink.out" || fail "the sink's stdout differs from what was sent"
echo "the sink's stdout holds both payloads, back to back, byte-exact; its log:"
sed 's/^/  /' "$work/sink.log"

step "Pub/Sub: serve --pub publishes each stdin line as TOPIC BODY; sub takes the topics its filter matches"
mkfifo "$work/pub.in" "$work/pub.out" "$work/pub.err"
"$weida" serve --pub 'weida://127.0.0.1:0/market' <"$work/pub.in" >"$work/pub.out" 2>"$work/pub.err" &
pids+=($!)
pub_pid=$!
# 3: the publisher's stdin; 4: its stdout (the address); 5: its stderr.
exec 3>"$work/pub.in" 4<"$work/pub.out" 5<"$work/pub.err"
read -r pub_addr <&4 || fail "serve --pub printed no address"
show "weida serve --pub 'weida://127.0.0.1:0/market' &"
echo "$pub_addr    <- \$PUB below; its stdin is fed line by line"

# publish LINE: feeds one line to the publisher and prints it with the
# publisher's report, which it returns in $report.
publish() {
	printf '%s\n' "$1" >&3
	read -r report <&5 || fail "serve --pub ended early"
	printf '  stdin:  %s\n  stderr: %s\n' "$1" "$report"
}
# greet LINE: SUBSCRIBE has no reply, so a subscriber is known to be counted
# only once the publisher reaches it. Repeat a greeting (quietly) until the
# publisher reports 1 subscriber: every greeting before that reached no one,
# so the new subscriber receives exactly one.
greet() {
	local deadline=$((SECONDS + 20))
	while [ "$SECONDS" -lt "$deadline" ]; do
		printf '%s\n' "$1" >&3
		read -r report <&5 || fail "serve --pub ended early"
		case $report in
		*subscribers=1)
			printf '  stdin:  %s  (repeated until the publisher counts the subscriber)\n  stderr: %s\n' "$1" "$report"
			return
			;;
		*subscribers=0) ;;
		*) fail "unexpected publisher report: $report" ;;
		esac
	done
	fail "no subscription arrived within 20 s"
}
# sub NAME ARGS...: a subscriber in the background, bounded in time, none
# of the publisher's pipes inherited (its stdin must end when we close it).
sub() {
	local name=$1
	shift
	timeout 30 "$weida" sub "$@" "$pub_addr" >"$work/$name.out" 2>"$work/$name.log" 3>&- 4<&- 5<&- &
	pids+=($!)
	eval "${name}_pid=$!"
}
show "weida sub --filter 'px.#' --count 3 \"\$PUB\" &"
sub px --filter 'px.#' --count 3
greet 'px.hello prices follow'
show "weida sub --filter 'news.#' --framing nul --count 2 \"\$PUB\" &"
sub news --filter 'news.#' --framing nul --count 2
greet 'news.hello headlines follow'
echo "the publisher's stdin and stderr, line by line:"
publish 'px.eur 1.0841'
publish 'px.gbp 0.8573'
publish 'news.markets the euro rose, the pound held'
publish 'weather sunny'
[ "$report" = "published topic=weather subscribers=0" ] || fail "a topic no filter matches was delivered"
wait "$px_pid" || fail "sub px exited $?"
wait "$news_pid" || fail "sub news exited $?"
exec 3>&- # the end of stdin is the publisher's ordinary end
wait "$pub_pid" || fail "serve --pub exited $? at the end of stdin"
exec 4<&- 5<&-

echo "sub --filter 'px.#' (line framing) wrote:"
sed 's/^/  /' "$work/px.out"
sort "$work/px.out" | cmp -s - <(printf '%s\n' 0.8573 1.0841 'prices follow') ||
	fail "sub px received something else"
echo "sub --filter 'news.#' --framing nul wrote (read with xargs -0):"
xargs -0 printf '  %s\n' <"$work/news.out"
sort -z "$work/news.out" | cmp -s - <(printf '%s\0' 'headlines follow' 'the euro rose, the pound held') ||
	fail "sub news received something else"
echo "(each message is its own stream, and Pub/Sub promises no order between messages)"
echo "the subscribers' logs:"
sed 's/^/  px:   /' "$work/px.log"
sed 's/^/  news: /' "$work/news.log"

step "Queue: weida broker holds each message until a consumer settles it; the producer hears every level"
echo "only listed keys may use the queue: one key may produce, another consume"
for who in producer consumer stranger; do
	show "weida keygen $who.pem"
	"$weida" keygen "$work/$who.pem" >"$work/$who.fp" || fail "keygen $who failed"
	echo "  $(cat "$work/$who.fp")"
done
printf '{"access": {"clients": "any", "anonymous": false,\n  "queues": {"/jobs": {"produce": ["%s"], "consume": ["%s"]}}}}\n' \
	"$(cat "$work/producer.fp")" "$(cat "$work/consumer.fp")" >"$work/broker.json"
echo "broker.json:"
sed 's/^/  /' "$work/broker.json"
start broker JOBS "weida broker 'weida://127.0.0.1:0/jobs' --queue /jobs:flushed --data broker-data --config broker.json" \
	broker 'weida://127.0.0.1:0/jobs' --queue /jobs:flushed --data "$work/broker-data" --config "$work/broker.json"
jobs_addr=$addr
show "weida-tour queue --producer producer.pem --consumer consumer.pem \"\$JOBS\""
"$bin/weida-tour" queue --producer "$work/producer.pem" --consumer "$work/consumer.pem" "$jobs_addr" ||
	fail "the queue scene failed"
show "echo 'not yours' | weida request --identity stranger.pem \"\$JOBS\"    # an unlisted key"
set +e
echo 'not yours' | "$weida" request --identity "$work/stranger.pem" "$jobs_addr" 2>"$work/stranger.log"
code=$?
set -e
sed 's/^/  /' "$work/stranger.log"
[ "$code" -eq 3 ] || fail "the unlisted key's request exited $code, want 3 (rejected)"
echo "exit 3: the broker refused the unlisted key, and kept nothing of its message"
show 'kill -TERM $!    # the broker: SIGTERM is its ordinary end'
stop broker
echo "the broker's log:"
sed 's/^/  /' "$work/broker.log"
grep -qx 'weida: retired: 0 settled, 0 requeued, 0 held undelivered' "$work/broker.log" ||
	fail "the broker did not retire with every message settled"
[ ! -s "$work/broker.out" ] || fail "the broker printed more than its address: $(cat "$work/broker.out")"
echo "the broker retired with nothing out and nothing held, and exited 0"

step "Cluster: three brokers replicate a queue; the leader is killed mid-stream and nothing certified is lost"
ports=($("$bin/weida-tour" ports 6)) # the file names every member's ports: free ones, chosen now
for i in 1 2 3; do
	show "weida keygen node$i.pem"
	"$weida" keygen "$work/node$i.pem" >"$work/node$i.fp" || fail "keygen node$i failed"
	echo "  $(cat "$work/node$i.fp")"
done
{
	echo '{"members": ['
	for i in 1 2 3; do
		sep=,
		[ "$i" = 3 ] && sep=
		printf '   {"url": "weida://%s@127.0.0.1:%s", "raft": "127.0.0.1:%s"}%s\n' \
			"$(cat "$work/node$i.fp")" "${ports[2 * i - 2]}" "${ports[2 * i - 1]}" "$sep"
	done
	echo ' ],'
	echo ' "queues": [{"path": "/orders", "durability": "flushed"}]}'
} >"$work/cluster.json"
echo "cluster.json (every member reads the same file):"
sed 's/^/  /' "$work/cluster.json"
for i in 1 2 3; do
	url="weida://127.0.0.1:${ports[2 * i - 2]}/orders"
	trust=()
	[ "$i" = 1 ] && trust=(--trust-out "$work/members.keys")
	start "node$i" "NODE$i" "weida broker '$url' --cluster cluster.json --identity node$i.pem --data node$i-data ${trust[*]:+--trust-out members.keys}" \
		broker "$url" --cluster "$work/cluster.json" --identity "$work/node$i.pem" --data "$work/node$i-data" "${trust[@]}"
	eval "node${i}_addr=\$addr"
done
echo "members.keys (--trust-out: the keys a client trusts to accept any member):"
sed 's/^/  /' "$work/members.keys"
show "weida-tour cluster --pids \$NODE_PIDS \"\$NODE1\" \"\$NODE2\" \"\$NODE3\""
# The shell would report the killed member's death on its stderr: park it
# on fd 8 (what the tour and the stops write still reaches stderr).
exec 8>&2 2>/dev/null
"$bin/weida-tour" cluster --pids "$node1_pid,$node2_pid,$node3_pid" "$node1_addr" "$node2_addr" "$node3_addr" 2>&8 ||
	fail "the cluster scene failed" 2>&8
for i in 1 2 3; do
	pid_var="node${i}_pid" copier_var="node${i}_copier"
	if kill -0 "${!pid_var}" 2>/dev/null; then
		stop "node$i" 2>&8
		echo "member $i's leadership log (SIGTERM, exit 0):"
	else
		wait "${!pid_var}" 2>/dev/null || true # the leader the tour killed
		wait "${!copier_var}"
		echo "member $i's leadership log (killed):"
	fi
	grep 'cluster: leader changed' "$work/node$i.log" | sed -E 's/^time=[^ ]+ //; s/leader=sha256:0{64}/leader=none/; s/sha256:([0-9a-f]{8})[0-9a-f]{48}([0-9a-f]{8})/sha256:\1…\2/; s/^/  /' ||
		fail "member $i logged no leader" 2>&8
done
exec 2>&8 8>&-

step "PAIR, SURVEY and BUS, which the CLI has no verb for: the weida-tour program"
show "weida-tour"
"$bin/weida-tour"

printf '\ndemo: every pattern behaved as specified\n'

// Package loss runs weida through a bad network (issue 11 item 3): a UDP
// proxy (internal/udpproxy) between client and server drops 2 % of the
// packets each way, duplicates 1 % and delays each by a random 0–3 ms,
// which reorders them, and drops 30 % of the handshake packets. Through it
// a large transfer must arrive byte-exact, thousands of exchanges must
// complete correctly, every receipt must resolve, and no transfer may be
// reported delivered that the receiver did not get intact.
//
// The test command runs the light sizes (8 MiB, 1,000 exchanges);
// build/soak.sh runs the full ones (64 MiB, 10,000 exchanges).
package loss

// Package brokercrash is the broker's crash test (issue 6): a real `weida
// broker` child process serving a Flushed queue (and, in a second run, a
// Written one) is killed with SIGKILL at random points while producers
// publish to it, and restarted on the same data directory, identity and
// port each time.
//
// Producers in the test process publish distinct messages: each one's
// topic names it, and its body is random bytes (1 B to 256 KiB,
// log-uniform) or, one time in eight, one of a few bodies every producer
// shares, so the store's dedup and payload reference counts live through
// the crashes. The ledger keeps each body's SHA-256. Half the producers
// use exchanges and count a message certified when the confirm (DATA key
// 8) says Stored; the other half send one-way transfers ordering Stored
// and count it certified when the Stored cursor reaches the body's length.
// A consumer takes half the producers' messages during the run, settling
// most, giving some back and holding some unreported, so each crash finds
// SETTLE records, redeliveries and deliveries outstanding; the other half
// stay in the store through every restart.
//
// A kill comes a random 0..20 ms after the epoch's random number of new
// certificates, or, in one start in six, at a random point of the start-up
// while the store may still be recovering. After the last kill the broker
// restarts once more and a fresh consumer drains the queue one message at
// a time up to a sentinel published last. The test then requires that
// every certified message was delivered and settled at least once, every
// delivered body matches its digest and names a message that was sent and
// whose send did not fail definitely, and every start of the broker
// printed its address with nothing on its stderr but what a clean start
// prints.
//
// The seed of the random choices is logged (WEIDA_CRASH_SEED replays
// them); WEIDA_CRASH_KILLS sets the number of kills per durability
// (default 3 for the test command; the full run is WEIDA_CRASH_KILLS=25);
// WEIDA_CRASH_RACE=1 builds the child with -race. README.md has the
// details.
//
// The package has no library code: it is tests only.
package brokercrash

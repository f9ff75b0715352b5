// Package load puts weida under many connections and a long sustained
// rate (issue 11 item 4): 100 connections with concurrent exchanges in the
// test command (1,000 in build/soak.sh), and a soak at a sustained rate
// for WEIDA_SOAK (10 minutes by default, heavy command only). Afterwards
// the process's goroutines and resident memory must come back to their
// baseline, and latency percentiles are recorded for docs/RELIABILITY.md.
package load

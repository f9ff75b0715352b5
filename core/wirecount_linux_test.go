package weida_test

import (
	"os"
	"strconv"
	"strings"
)

// wireCount is what this machine's loopback carried so far: bytes and UDP
// sends (a GSO batch is one send). A benchmark's stretch of it shows what
// each message put on the wire, both ends together; other processes'
// loopback traffic counts too, so read it on a quiet machine.
func wireCount() (loBytes, udpSends float64, ok bool) {
	loBytes, ok1 := loopbackBytes()
	udpSends, ok2 := udpOutDatagrams()
	return loBytes, udpSends, ok1 && ok2
}

// loopbackBytes is lo's transmitted bytes (/proc/net/dev).
func loopbackBytes() (float64, bool) {
	b, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(strings.TrimSpace(line), "lo:")
		if f := strings.Fields(rest); found && len(f) > 8 {
			v, err := strconv.ParseFloat(f[8], 64) // the transmit columns start at the ninth
			return v, err == nil
		}
	}
	return 0, false
}

// udpOutDatagrams is the kernel's UDP OutDatagrams (/proc/net/snmp): its
// "Udp:" lines are a header of names, then their values.
func udpOutDatagrams() (float64, bool) {
	b, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return 0, false
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(line, "Udp:")
		if !found {
			continue
		}
		if names == nil {
			names = strings.Fields(rest)
			continue
		}
		values := strings.Fields(rest)
		for i, name := range names {
			if name == "OutDatagrams" && i < len(values) {
				v, err := strconv.ParseFloat(values[i], 64)
				return v, err == nil
			}
		}
	}
	return 0, false
}

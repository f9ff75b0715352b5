package weida

import (
	"context"
	"net"
	"testing"
)

// SetClusterDNSForTest makes a portless cluster address resolve through
// lookup and dial port, until the test ends. It is no part of the API.
func SetClusterDNSForTest(t *testing.T, port uint16, lookup func(context.Context, string) ([]net.IPAddr, error)) {
	oldPort, oldLookup := clusterPort, lookupIPAddr
	clusterPort, lookupIPAddr = port, lookup
	t.Cleanup(func() { clusterPort, lookupIPAddr = oldPort, oldLookup })
}

package weida

import (
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// control receives SUBSCRIBE, UNSUBSCRIBE and CREDIT frames from accepted
// connections. No registration of this build publishes or queues yet, so
// they are ignored, as PROTOCOL.md §8.4.2 and §8.5 allow.
func (l *Listener) control(*transport.Conn, wire.Kind, *wire.Subscribe, *wire.Credit) {}

// connClosed is told when an accepted connection ended.
func (l *Listener) connClosed(*transport.Conn) {}

package weida

import (
	"sync"

	"github.com/weida-go/weida/core/wire"
)

// A DATA header is about 300 bytes, and handing its address to the
// transport (which encodes it through an interface) moves it to the heap:
// one such allocation per opened stream. The transport encodes the header
// before the open returns and keeps no reference to it, so an open borrows
// one from this pool for its span instead.
var headerLoans = sync.Pool{New: func() any { return new(wire.Data) }}

// lendHeader returns a pooled header holding h. Give it back with
// returnHeader once the transport call that encodes it has returned, and
// never keep it, nor hand it to anything that does.
func lendHeader(h wire.Data) *wire.Data {
	p := headerLoans.Get().(*wire.Data)
	*p = h
	return p
}

// returnHeader clears p (it may point at the caller's strings and report
// levels) and puts it back.
func returnHeader(p *wire.Data) {
	*p = wire.Data{}
	headerLoans.Put(p)
}

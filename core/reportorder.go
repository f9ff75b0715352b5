package weida

import (
	"context"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Completion levels a sender may order a report for (PROTOCOL.md §8.6.1).
// Levels are plain integers because the space is open: 1..5 are weida's,
// 6..15 are reserved for later protocol versions (ordering one fails with
// Protocol), and ApplicationFloor and above are the application's own
// stages — carried and ordered, never interpreted.
//
// TransportReceipt is a level a receiver may report like any other; the
// library never synthesizes it and publishes no transport progress
// (decision 0023 §4.1). The sender's own transport receipt stays
// Delivery.Delivered.
const (
	TransportReceipt = cursor.TransportReceipt // 1: the receiver's transport holds the bytes
	Accepted         = cursor.Accepted         // 2: a hop took responsibility in memory
	Stored           = cursor.Stored           // 3: a store holds the bytes up to the offset
	Replicated       = cursor.Replicated       // 4: the bytes up to the offset are replicated
	Processed        = cursor.Processed        // 5: the consumer settled the bytes up to the offset
	ApplicationFloor = cursor.ApplicationFloor // 16: the first level an application may name
)

// ReportMode says when the receiver writes its report.
type ReportMode uint64

const (
	// Progress reports levels as they advance, at the receiver's own
	// granularity (every 1 MiB or 100 ms, whichever first), and the latest
	// offsets at the end. The default.
	Progress ReportMode = ReportMode(cursor.Progress)
	// FinalOnly reports exactly one offset per level, when the receiver
	// finishes its report.
	FinalOnly ReportMode = ReportMode(cursor.FinalOnly)
)

// String names the mode.
func (m ReportMode) String() string { return cursor.Mode(m).String() }

// ReportOrder asks the receiver of a transfer to report how far its
// payload got, per level (decision 0023): it rides in the transfer's
// header, and the receiver answers on a stream of its own, so no pattern
// changes shape and nothing ever waits for a report. The zero value orders
// nothing.
//
// Levels are sorted and de-duplicated before they are sent; at most 16 may
// remain, none in the reserved range 6..15, and Mode must be Progress or
// FinalOnly — otherwise the transfer fails with Protocol before anything is
// sent. An order is a request, not a guarantee: a receiver that cannot
// reach a level never reports it, and the transfer does not fail.
type ReportOrder struct {
	Levels []uint64
	Mode   ReportMode
}

// validate checks the order as the wire will carry it.
func (o ReportOrder) validate() (cursor.Order, error) {
	return cursor.NewOrder(o.Levels, cursor.Mode(o.Mode))
}

// orderReport validates order and, when it orders anything, allocates its
// report id on c (the connection the transfer travels) and writes DATA keys
// 9-11 into h. It returns nil when nothing is ordered. A transfer that then
// fails to open must close what it returned.
func orderReport(c *transport.Conn, order ReportOrder, h *wire.Data) (*reportFeed, error) {
	if order.ordersNothing() {
		return nil, nil // the zero order of almost every transfer, without building an Order
	}
	o, err := order.validate()
	if err != nil || o.Empty() {
		return nil, err
	}
	f := newReportFeed(c, o)
	id, err := c.OrderReport(f)
	if err != nil {
		return nil, err
	}
	f.setID(id)
	h.ReportID = wire.Some(id)
	h.Report = o.Levels()
	h.ReportMode = uint64(o.Mode())
	return f, nil
}

// checkReportOrder refuses a bad order (Protocol) before an Open looks for
// a connection, so bad input never waits on the network.
func checkReportOrder(meta TransferMeta) error {
	if meta.Report.ordersNothing() {
		return nil
	}
	_, err := meta.Report.validate()
	return err
}

// ordersNothing reports whether o is valid and empty: no levels, and a
// mode validate accepts.
func (o ReportOrder) ordersNothing() bool {
	return len(o.Levels) == 0 && (o.Mode == Progress || o.Mode == FinalOnly)
}

// refuseReportOrder is the check of the whole-payload calls that hand back
// no Cursors (SendWith, RequestWith): an order there could never be
// watched, so it is refused rather than sent for nobody.
func refuseReportOrder(meta TransferMeta) error {
	if len(meta.Report.Levels) > 0 {
		return errs.New(errs.KindRuntime, "meta orders a report, but this call returns no Cursors to watch it: order it through SendReporting, Open or OpenBi")
	}
	return nil
}

// sendReporting writes payload as one whole transfer on what open opens
// and returns the transfer's Cursors (nil when order is empty). The order
// is checked before open, so a bad one sends nothing and waits for no
// connection. ctx also bounds a write stalled by flow control or a unix
// socket's FIN waiting for room: it resets the transfer (sendWhole).
func sendReporting(ctx context.Context, payload []byte, order ReportOrder,
	open func(TransferMeta) (*OutgoingTransfer, error)) (*Cursors, error) {
	meta := TransferMeta{Report: order}.whole(len(payload))
	if err := checkReportOrder(meta); err != nil {
		return nil, err
	}
	t, err := open(meta)
	if err != nil {
		return nil, err
	}
	cursors := t.Cursors()
	if err := t.sendWhole(ctx, payload); err != nil {
		if cursors != nil {
			_ = cursors.Close()
		}
		return nil, err
	}
	return cursors, nil
}

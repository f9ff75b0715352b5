package store_test

import (
	"bytes"
	"errors"
	"syscall"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
	"github.com/weida-go/weida/core/errs"
)

// tryAdmit streams body into q and admits it, returning Admit's (or the
// body's first write's) result.
func tryAdmit(q *store.Queue, body []byte) (store.Message, error) {
	return tryAdmitMeta(q, body, store.Meta{})
}

// TestAdmissionFaultsLoseNothingAccepted injects each disk failure an
// admission can meet into a Flushed queue holding accepted messages: the
// failing Admit returns a clear Io error (Indeterminate wrapping
// ErrNotDurable only when its ADMIT record was written before the fsync
// failed), and after a power cut every message accepted before it is
// back, intact, and the failed one is back only if it was indeterminate.
func TestAdmissionFaultsLoseNothingAccepted(t *testing.T) {
	tests := []struct {
		name       string
		fault      faultfs.Fault
		size       int
		notDurable bool
	}{
		{"journal fsync fails", faultfs.Fault{Op: faultfs.OpSync, Path: ".seg", Err: syscall.EIO}, 64, true},
		{"journal write hits ENOSPC", faultfs.Fault{Op: faultfs.OpWrite, Path: ".seg", Err: syscall.ENOSPC}, 64, false},
		{"journal write hits EIO", faultfs.Fault{Op: faultfs.OpWrite, Path: ".seg", Err: syscall.EIO}, 64, false},
		{"body spill hits ENOSPC", faultfs.Fault{Op: faultfs.OpWrite, Path: "/tmp/body-", Err: syscall.ENOSPC}, 100 << 10, false},
		{"body fsync fails", faultfs.Fault{Op: faultfs.OpSync, Path: "/tmp/body-", Err: syscall.EIO}, 100 << 10, false},
		{"small payload write hits EIO", faultfs.Fault{Op: faultfs.OpWrite, Path: "/payload/", Err: syscall.EIO}, 8 << 10, false},
		{"payload fsync fails", faultfs.Fault{Op: faultfs.OpSync, Path: "/payload/", Err: syscall.EIO}, 8 << 10, false},
		{"payload directory fsync fails", faultfs.Fault{Op: faultfs.OpSyncDir, Path: "/payload/", Err: syscall.EIO}, 8 << 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			disk := faultfs.New(1)
			s := openOnDisk(t, disk)
			q, _ := openQueue(t, s, store.Flushed)
			var accepted []store.Message
			for i, size := range []int{64, 8 << 10, 100 << 10} {
				accepted = append(accepted, admit(t, q, bodyOf(i, size), store.Meta{}))
			}
			remove := disk.Inject(tc.fault)
			failed, err := tryAdmit(q, bodyOf(99, tc.size))
			remove()
			var e *errs.Error
			switch {
			case err == nil:
				t.Fatal("Admit succeeded on a failing disk")
			case !errors.As(err, &e):
				t.Fatalf("Admit = %v, not a weida error", err)
			case tc.notDurable != errors.Is(err, store.ErrNotDurable):
				t.Fatalf("Admit = %v; ErrNotDurable %v, want %v", err, errors.Is(err, store.ErrNotDurable), tc.notDurable)
			case tc.notDurable && (e.Kind != errs.KindIndeterminate || failed.Seq == 0):
				t.Fatalf("Admit = %v (kind %v, seq %d), want Indeterminate with the recorded seq", err, e.Kind, failed.Seq)
			case !tc.notDurable && e.Kind != errs.KindIO:
				t.Fatalf("Admit = %v (kind %v), want Io", err, e.Kind)
			case !errors.Is(err, tc.fault.Err):
				t.Fatalf("Admit = %v, does not carry %v", err, tc.fault.Err)
			}
			disk.PowerCut()

			s = openOnDisk(t, disk)
			defer s.Close()
			q, live := openQueue(t, s, store.Flushed)
			got := seqsOf(live)
			want := seqsOf(accepted)
			if tc.notDurable && len(got) == len(want)+1 {
				want = append(want, failed.Seq) // indeterminate: it may be there
			}
			if !equalSeqs(got, want) {
				t.Fatalf("after the cut live %v, want %v", got, want)
			}
			for i, m := range accepted {
				if b := readBody(t, q, m.Seq); !bytes.Equal(b, bodyOf(i, int(m.BodyLen))) {
					t.Fatalf("accepted seq %d came back wrong", m.Seq)
				}
			}
			admit(t, q, []byte("the queue works again"), store.Meta{})
		})
	}
}

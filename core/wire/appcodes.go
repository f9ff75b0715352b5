package wire

// AppCode is a QUIC application error code, used in CONNECTION_CLOSE,
// RESET_STREAM and STOP_SENDING (PROTOCOL.md §10.2).
type AppCode uint64

// The QUIC application error codes of wire v0.
const (
	CodeNoError           AppCode = 0
	CodeInternal          AppCode = 1
	CodeProtocolViolation AppCode = 2
	CodeCanceled          AppCode = 3
	CodeNegotiationFailed AppCode = 4
	CodeLimitExceeded     AppCode = 5
	CodeShutdown          AppCode = 6
	CodeRejected          AppCode = 7
	CodeUnknownEndpoint   AppCode = 8
	CodeUnsupported       AppCode = 9
	// CodeNotLeader stops a one-way transfer, SUBSCRIBE or CREDIT to a
	// replicated queue this node does not lead, and closes the connections
	// of a queue whose leadership this node lost.
	CodeNotLeader AppCode = 10
)

var appCodeNames = [...]string{
	"NO_ERROR", "INTERNAL", "PROTOCOL_VIOLATION", "CANCELED", "NEGOTIATION_FAILED",
	"LIMIT_EXCEEDED", "SHUTDOWN", "REJECTED", "UNKNOWN_ENDPOINT", "UNSUPPORTED",
	"NOT_LEADER",
}

func (c AppCode) String() string {
	if c < AppCode(len(appCodeNames)) {
		return appCodeNames[c]
	}
	return "APP_CODE_" + itoa(uint64(c))
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

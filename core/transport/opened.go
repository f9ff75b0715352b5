package transport

// Opener is an optional extension of Handler: a listener's Handler that
// implements it is told of each accepted connection once its negotiation
// succeeded (the dialling side learns it from Dial returning).
type Opener interface {
	Opened(c *Conn)
}

// started tells the listener's Handler that c is open, when its start
// (the HELLO exchange) succeeded and the Handler wants to know.
func (l *Listener) started(c *Conn, err error) {
	if o, ok := l.handler.(Opener); ok && err == nil {
		o.Opened(c)
	}
}

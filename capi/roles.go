package main

// role is what kind of object a handle names; every use checks it.
type role uint8

// The roles of SURFACE.md §3.2.
const (
	roleRuntime role = iota + 1
	roleIdentity
	roleTrust
	roleBinding
	roleRequester
	roleReplier
	roleRequest
	rolePusher
	rolePuller
	rolePublisher
	roleFanout
	roleSubscriber
	rolePaired
	roleSurveyor
	roleSurvey
	roleRespondent
	roleBus
	roleOstream
	roleIstream
	roleReply
	roleMsg
	roleOp
	roleCursors
	roleReporter
	roleRadio
	roleSegment
	roleDish
	roleCQ
	lastRole = roleCQ
)

var roleNames = [...]string{
	roleRuntime: "runtime", roleIdentity: "identity", roleTrust: "trust", roleBinding: "binding",
	roleRequester: "requester", roleReplier: "replier", roleRequest: "request", rolePusher: "pusher",
	rolePuller: "puller", rolePublisher: "publisher", roleFanout: "fanout", roleSubscriber: "subscriber",
	rolePaired: "paired", roleSurveyor: "surveyor", roleSurvey: "survey", roleRespondent: "respondent",
	roleBus: "bus", roleOstream: "ostream", roleIstream: "istream", roleReply: "reply", roleMsg: "msg",
	roleOp: "op", roleCursors: "cursors", roleReporter: "reporter",
	roleRadio: "radio", roleSegment: "segment", roleDish: "dish", roleCQ: "cq",
}

func (r role) String() string {
	if int(r) < len(roleNames) && roleNames[r] != "" {
		return roleNames[r]
	}
	return "unknown"
}

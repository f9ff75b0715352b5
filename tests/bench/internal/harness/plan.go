package harness

import "time"

// Plan is how much of each workload one invocation runs.
type Plan struct {
	// Reps is how many repetitions each case gets per system (bulk and
	// idle memory, whose runs are long or heavy, use their own counts).
	Reps int `json:"reps"`

	// ReqRepSizes are the request (and reply) sizes; each repetition runs
	// round trips one after another until ReqRepMax or ReqRepTime.
	ReqRepSizes []int         `json:"reqrep_sizes"`
	ReqRepMax   int           `json:"reqrep_max"`
	ReqRepTime  time.Duration `json:"reqrep_time"`

	// OneWay are the one-way cases; each repetition's producers send for
	// OneWayTime and the clock stops when the receiver has drained it all.
	OneWay     []OneWayCase  `json:"oneway"`
	OneWayTime time.Duration `json:"oneway_time"`

	// FanOutSubscribers are the subscriber counts; each repetition
	// publishes FanOutCopies/subscribers payloads of FanOutSize (at least
	// FanOutMinPublications), paced so that the slowest subscriber is at
	// most FanOutLag publications behind.
	FanOutSubscribers     []int `json:"fanout_subscribers"`
	FanOutSize            int   `json:"fanout_size"`
	FanOutCopies          int   `json:"fanout_copies"`
	FanOutMinPublications int   `json:"fanout_min_publications"`
	FanOutLag             int   `json:"fanout_lag"`

	// BulkBytes is sent on one stream in writes of BulkChunk, BulkReps
	// times per system, each in a fresh child process.
	BulkBytes int64 `json:"bulk_bytes"`
	BulkChunk int   `json:"bulk_chunk"`
	BulkReps  int   `json:"bulk_reps"`

	// Connects is how many cold connections each repetition times.
	Connects int `json:"connects"`

	// IdleConns connections are held open against a child server, IdleReps
	// times per system.
	IdleConns int `json:"idle_conns"`
	IdleReps  int `json:"idle_reps"`

	// QueueSize is the persistent queue's message size. Publishing with
	// confirm runs up to QueueMax messages or QueueTime per repetition,
	// the windowed case with QueueWindow confirms in flight; the
	// produce-to-consume case times up to QueueLatencyMax messages.
	QueueSize       int           `json:"queue_size"`
	QueueMax        int           `json:"queue_max"`
	QueueTime       time.Duration `json:"queue_time"`
	QueueWindow     int           `json:"queue_window"`
	QueueLatencyMax int           `json:"queue_latency_max"`

	// BindingOps is how many round trips or messages each bindings script
	// measures per figure, BindingReps how many times it runs.
	BindingOps  int `json:"binding_ops"`
	BindingReps int `json:"binding_reps"`

	// CaseTimeout bounds one system's run of one case, set-up included.
	CaseTimeout time.Duration `json:"case_timeout"`
}

// OneWayCase is one message size sent by a number of producers, each on
// its own connection.
type OneWayCase struct {
	Size      int `json:"size"`
	Producers int `json:"producers"`
}

// FullPlan is the documented run: a few minutes on a 2-core machine.
func FullPlan() Plan {
	return Plan{
		Reps:        5,
		ReqRepSizes: []int{64, 1 << 10, 64 << 10, 1 << 20},
		ReqRepMax:   20000,
		ReqRepTime:  700 * time.Millisecond,
		OneWay: []OneWayCase{
			{Size: 64, Producers: 1}, {Size: 64, Producers: 4},
			{Size: 1 << 10, Producers: 1}, {Size: 64 << 10, Producers: 1},
		},
		OneWayTime:            700 * time.Millisecond,
		FanOutSubscribers:     []int{1, 8, 64, 256},
		FanOutSize:            1 << 10,
		FanOutCopies:          60000,
		FanOutMinPublications: 400,
		FanOutLag:             128,
		BulkBytes:             1 << 30,
		BulkChunk:             64 << 10,
		BulkReps:              3,
		Connects:              40,
		IdleConns:             256,
		IdleReps:              3,
		QueueSize:             64,
		QueueMax:              20000,
		QueueTime:             700 * time.Millisecond,
		QueueWindow:           256,
		QueueLatencyMax:       5000,
		BindingOps:            5000,
		BindingReps:           3,
		CaseTimeout:           3 * time.Minute,
	}
}

// SmokePlan runs every workload with tiny counts: it proves the harness
// works, its figures mean nothing.
func SmokePlan() Plan {
	p := FullPlan()
	p.Reps = 1
	p.ReqRepMax = 5
	p.ReqRepTime = 50 * time.Millisecond
	p.OneWayTime = 20 * time.Millisecond
	p.FanOutCopies = 512
	p.FanOutMinPublications = 2
	p.BulkBytes = 4 << 20
	p.BulkReps = 1
	p.Connects = 2
	p.IdleConns = 8
	p.IdleReps = 1
	p.QueueMax = 50
	p.QueueTime = 50 * time.Millisecond
	p.QueueLatencyMax = 10
	p.BindingOps = 50
	p.BindingReps = 1
	p.CaseTimeout = 30 * time.Second
	return p
}

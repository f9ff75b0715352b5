package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/broker/access"
)

// maxBrokerConfigBytes bounds the configuration file read into memory.
const maxBrokerConfigBytes = 1 << 20

// brokerConfigFile is the JSON form of a broker configuration:
//
//	{"data": "/var/lib/weida",
//	 "queue_bytes": 8388608, "max_queues": 64, "max_unsettled": 256,
//	 "segment_bytes": 67108864,
//	 "queues": [{"path": "/jobs", "durability": "flushed"}, {"path": "/mail"}],
//	 "access": {"clients": "/etc/weida/clients.keys", "anonymous": false,
//	            "groups": {"workers": ["sha256:…"]},
//	            "queues": {"/jobs": {"produce": ["sha256:…"], "consume": ["@workers"]}}}}
//
// Every key is optional; an absent bound is the default, and a queue's
// durability defaults to memory. Unknown keys are refused, so a typo is an
// error rather than a silent default.
type brokerConfigFile struct {
	Data         string `json:"data"`
	QueueBytes   int64  `json:"queue_bytes"`
	MaxQueues    int    `json:"max_queues"`
	SegmentBytes int64  `json:"segment_bytes"`
	MaxUnsettled *int   `json:"max_unsettled"` // 0 is meaningful: admit, never deliver
	Queues       []struct {
		Path       string `json:"path"`
		Durability string `json:"durability"`
	} `json:"queues"`
	// Access is who may use the queues (access.Rules); SIGHUP reads it
	// again.
	Access *access.Rules `json:"access"`
}

// readBrokerConfigFile reads the file at path; an error names the file,
// and the line when the decoder knows where it stopped.
func readBrokerConfigFile(path string) (*brokerConfigFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the broker configuration: %w", err)
	}
	if len(raw) > maxBrokerConfigBytes {
		return nil, fmt.Errorf("the broker configuration %s is %d bytes; at most %d are read", path, len(raw), maxBrokerConfigBytes)
	}
	var f brokerConfigFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("the broker configuration %s:%d: %w", path, errorLine(raw, err, dec.InputOffset()), err)
	}
	return &f, nil
}

// errorLine is the line a decoding error points at: its own offset when it
// has one, else where the decoder stopped.
func errorLine(raw []byte, err error, stopped int64) int {
	offset := stopped
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	offset = min(max(offset, 0), int64(len(raw)))
	return 1 + bytes.Count(raw[:offset], []byte("\n"))
}

// readBrokerConfig reads and checks the file at path.
func readBrokerConfig(path string) (broker.Config, error) {
	var cfg broker.Config
	f, err := readBrokerConfigFile(path)
	if err != nil {
		return cfg, err
	}
	cfg.Access = f.Access
	cfg.DataDir, cfg.QueueBytes, cfg.MaxQueues, cfg.SegmentBytes = f.Data, f.QueueBytes, f.MaxQueues, f.SegmentBytes
	if f.MaxUnsettled != nil {
		cfg.MaxUnsettled = *f.MaxUnsettled
		if cfg.MaxUnsettled == 0 {
			cfg.MaxUnsettled = broker.NeverDeliver
		}
	}
	for i, q := range f.Queues {
		d := broker.Memory
		if q.Durability != "" {
			if d, err = broker.ParseDurability(q.Durability); err != nil {
				return cfg, fmt.Errorf("the broker configuration %s, queue %d: %w", path, i+1, err)
			}
		}
		cfg.Queues = append(cfg.Queues, broker.QueueConfig{Path: q.Path, Durability: d})
	}
	return cfg, nil
}

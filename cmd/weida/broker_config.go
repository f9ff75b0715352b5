package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/weida-go/weida/core/broker"
)

// maxBrokerConfigBytes bounds the configuration file read into memory.
const maxBrokerConfigBytes = 1 << 20

// brokerConfigFile is the JSON form of a broker configuration:
//
//	{"data": "/var/lib/weida",
//	 "queue_bytes": 8388608, "max_queues": 64, "max_unsettled": 256,
//	 "segment_bytes": 67108864,
//	 "queues": [{"path": "/jobs", "durability": "flushed"}, {"path": "/mail"}]}
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
}

// readBrokerConfig reads and checks the file at path.
func readBrokerConfig(path string) (broker.Config, error) {
	var cfg broker.Config
	raw, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("cannot read the broker configuration: %w", err)
	}
	if len(raw) > maxBrokerConfigBytes {
		return cfg, fmt.Errorf("the broker configuration %s is %d bytes; at most %d are read", path, len(raw), maxBrokerConfigBytes)
	}
	var f brokerConfigFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return cfg, fmt.Errorf("the broker configuration %s: %w", path, err)
	}
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

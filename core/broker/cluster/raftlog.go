package cluster

import (
	"fmt"

	"github.com/hashicorp/go-hclog"
)

// raftLogLevel parses NodeConfig.RaftLogLevel; empty is info.
func raftLogLevel(name string) (hclog.Level, error) {
	if name == "" {
		return hclog.Info, nil
	}
	switch level := hclog.LevelFromString(name); level {
	case hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error:
		return level, nil
	}
	return hclog.NoLevel, fmt.Errorf("raft log level %q: want trace, debug, info, warn or error", name)
}

// raftLogger is the hashicorp/raft logger of the group at path: the
// node's RaftLog at its level, else nothing.
func (n *Node) raftLogger(path string) hclog.Logger {
	if n.raftLog == nil {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Name: "raft " + path, Output: n.raftLog, Level: n.raftLevel})
}

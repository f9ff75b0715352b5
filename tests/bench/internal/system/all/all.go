// Package all lists the systems the benchmarks compare, weida first.
package all

import (
	"fmt"
	"strings"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/natssys"
	"github.com/weida-go/weida/tests/bench/internal/system/quicsys"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
	"github.com/weida-go/weida/tests/bench/internal/system/zmqsys"
)

// Systems is every system, weida first (the report's ratios are weida's
// figure over each other system's).
func Systems() []system.System {
	return []system.System{weidasys.System{}, quicsys.System{}, natssys.System{}, zmqsys.System{}}
}

// ByName finds a system by its Name, ignoring case.
func ByName(name string) (system.System, error) {
	var names []string
	for _, s := range Systems() {
		if strings.EqualFold(s.Name(), name) {
			return s, nil
		}
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("no system %q; the systems are %s", name, strings.Join(names, ", "))
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/identity"
)

// The broker's access options; per-queue permissions come from the
// configuration file's "access" section.
var (
	optClients = option{name: "--clients", value: "FILE|any",
		help: "only the keys listed in FILE (one sha256: fingerprint per line, # comments) may connect, " +
			"or with any, every client that presents a key; it replaces the configuration file's " +
			"access.clients, and is read again on SIGHUP"}
	optAnonymous = option{name: "--anonymous",
		help: "admit clients that present no key; without it they are admitted only when the broker " +
			"binds a loopback address (or the configuration file says access.anonymous)"}
)

// accessRules are the configuration file's access section (fileRules,
// nil when it has none) under the --clients and --anonymous flags. The
// broker verb always runs under rules, so a broker bound beyond loopback
// refuses anonymous clients unless told otherwise.
func accessRules(inv *invocation, fileRules *access.Rules) *access.Rules {
	rules := access.Rules{}
	if fileRules != nil {
		rules = *fileRules
	}
	if clients, ok := inv.value(optClients); ok {
		rules.Clients = clients
	}
	if inv.has(optAnonymous) {
		on := true
		rules.Anonymous = &on
	}
	return &rules
}

// checkAccess compiles the access rules before anything binds, so that a
// rule the broker cannot mean names the file it came from.
func checkAccess(inv *invocation, cfg broker.Config) error {
	paths := make([]string, len(cfg.Queues))
	for i, q := range cfg.Queues {
		paths[i] = q.Path
	}
	if inv.cluster != nil {
		paths = append(paths, clusterPaths(inv.cluster.file)...)
	}
	_, err := access.Compile(*cfg.Access, paths, cfg.Loopback, access.ReadKeyFile)
	return fromConfigFile(inv, err)
}

// fromConfigFile names the configuration file in an error about the
// rules read from it (a key file's own errors name that file already).
func fromConfigFile(inv *invocation, err error) error {
	file, ok := inv.value(optConfig)
	if !ok || err == nil {
		return err
	}
	var rule *access.RuleError
	if errors.As(err, &rule) {
		if raw, rerr := os.ReadFile(file); rerr == nil && len(raw) <= maxBrokerConfigBytes {
			if line := jsonLine(raw, append([]string{"access"}, rule.Path...)); line > 0 {
				return fmt.Errorf("%s:%d: %w", file, line, err)
			}
		}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// bindsLoopback reports whether addr accepts connections from this
// machine only: a loopback QUIC address, or a unix socket.
func bindsLoopback(addr weida.Address) bool {
	if addr.Scheme != identity.SchemeQUIC {
		return true
	}
	return access.IsLoopbackAddr(addr.HostPort())
}

// rereadAccess reads the access rules again, as at start: the
// configuration file's section under the flags. Queues and bounds are not
// reloaded (they need a restart).
func rereadAccess(inv *invocation) (*access.Rules, error) {
	var fileRules *access.Rules
	if file, ok := inv.value(optConfig); ok {
		f, err := readBrokerConfigFile(file)
		if err != nil {
			return nil, err
		}
		fileRules = f.Access
	}
	return accessRules(inv, clusterAccess(inv, fileRules)), nil
}

// serveReloads reloads the access rules on every SIGHUP until ctx ends. A
// reload that fails keeps the rules in force and says why; no connection
// is dropped either way.
func serveReloads(ctx context.Context, b *broker.Broker, inv *invocation, con console) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		rules, err := rereadAccess(inv)
		if err == nil {
			err = fromConfigFile(inv, b.ReloadAccess(ctx, rules))
		}
		if err != nil {
			fmt.Fprintf(con.err, "weida: reload refused, the access rules in force stay: %v\n", err)
			continue
		}
		fmt.Fprintf(con.err, "weida: reloaded; %s\n", b.Access().Describe())
	}
}

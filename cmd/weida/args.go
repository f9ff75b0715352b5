package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
)

// verb is one subcommand: its command-line grammar and what it does.
type verb struct {
	name     string
	synopsis string // what follows "weida <name>" in the usage text
	summary  string // one line for the usage text
	options  []option
	// takesFile says a second non-option argument names the payload file.
	takesFile bool
	// operand names the first non-option argument when it is not a URL
	// (keygen's PATH); it is kept in invocation.url all the same.
	operand string
	// check enforces the verb's own usage rules once the arguments are
	// read, e.g. serve's role; nil when there are none.
	check func(*invocation) error
	// runtimeConfig, when set, is the configuration of the runtime the verb
	// runs on (the broker's offer depends on its queues); nil is the default.
	runtimeConfig func(*invocation) (weida.Config, error)
	run           func(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error
}

// option is a "--name" argument; value names its operand, and is empty for
// a flag that takes none.
type option struct {
	name  string
	value string
	help  string
}

// invocation is one parsed command line that runs a verb.
type invocation struct {
	verb  *verb
	url   string
	file  string            // the payload file; empty means stdin
	given map[string]string // option name to value ("" for a flag)
	// drainDeadline is the one deadline by which the process's ending is
	// over (SURFACE.md §1.7): serve spends part of it letting the work in
	// hand finish, the drain the rest. It is fixed at its first call, and
	// runVerb sets it before the verb runs.
	drainDeadline func() time.Time
	// broker is the broker verb's configuration, read once by its
	// runtimeConfig so the runtime's offer and the queues agree.
	broker broker.Config
	// cluster is the broker verb's cluster membership (--cluster), nil
	// when it serves no replicated queue.
	cluster *clusterMember
}

// value returns the operand of o, when o was given.
func (inv *invocation) value(o option) (string, bool) {
	v, ok := inv.given[o.name]
	return v, ok
}

// has reports whether o was given.
func (inv *invocation) has(o option) bool {
	_, ok := inv.given[o.name]
	return ok
}

// action is what a command line asks for.
type action int

const (
	runVerbAction action = iota
	showHelp
	showVersion
	showCompletion
)

// commandLine is a parsed command line: an action, and for runVerbAction
// the invocation.
type commandLine struct {
	action action
	inv    *invocation
	shell  string // for showCompletion
}

// usageError is a command line that cannot be carried out (exit 2). verb,
// when set, is the verb whose synopsis helps the user fix it.
type usageError struct {
	msg  string
	verb *verb
}

func (e *usageError) Error() string { return e.msg }

// usageErrorf builds a usageError; v may be nil.
func usageErrorf(v *verb, format string, args ...any) *usageError {
	return &usageError{msg: fmt.Sprintf(format, args...), verb: v}
}

// builtinAction recognises the arguments that work anywhere: help and
// version.
func builtinAction(arg string) (action, bool) {
	switch arg {
	case "--help", "-h":
		return showHelp, true
	case "--version", "-V":
		return showVersion, true
	}
	return runVerbAction, false
}

// looksLikeOption reports whether arg is meant as an option. A lone "-" is
// an ordinary argument, as Unix tools treat it.
func looksLikeOption(arg string) bool {
	return len(arg) > 1 && arg[0] == '-'
}

// parseCommandLine reads args (without the program name) as SURFACE.md
// §1.1 describes: a verb, then options anywhere, the first other argument
// being the URL and the second FILE. Arguments are read left to right, so
// --help or --version wins over a mistake only when it comes first.
func parseCommandLine(args []string) (commandLine, error) {
	if len(args) == 0 {
		return commandLine{}, usageErrorf(nil, "no verb given")
	}
	first := args[0]
	if act, ok := builtinAction(first); ok {
		return commandLine{action: act}, nil
	}
	if first == "help" {
		return commandLine{action: showHelp}, nil
	}
	if first == "completion" {
		return parseCompletion(args[1:])
	}
	if looksLikeOption(first) {
		return commandLine{}, usageErrorf(nil, "unknown option %q before the verb; options follow the verb", first)
	}
	v := findVerb(first)
	if v == nil {
		return commandLine{}, usageErrorf(nil, "unknown verb %q", first)
	}
	return parseVerbArgs(v, args[1:])
}

// findVerb returns the verb called name, or nil.
func findVerb(name string) *verb {
	for _, v := range verbs {
		if v.name == name {
			return v
		}
	}
	return nil
}

// parseVerbArgs reads what follows the verb.
func parseVerbArgs(v *verb, args []string) (commandLine, error) {
	inv := &invocation{verb: v, given: make(map[string]string)}
	var operands []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if act, ok := builtinAction(arg); ok {
			return commandLine{action: act}, nil
		}
		if !looksLikeOption(arg) {
			operands = append(operands, arg)
			continue
		}
		opt, ok := v.option(arg)
		if !ok {
			return commandLine{}, usageErrorf(v, "unknown option %q for %s", arg, v.name)
		}
		if _, twice := inv.given[opt.name]; twice {
			return commandLine{}, usageErrorf(v, "option %s given twice", opt.name)
		}
		value := ""
		if opt.value != "" {
			// An option-like next argument is taken as a forgotten value, not
			// as a path that starts with "-": the mistake is far more common.
			if i+1 == len(args) || looksLikeOption(args[i+1]) {
				return commandLine{}, usageErrorf(v, "option %s needs a value (%s)", opt.name, opt.value)
			}
			i++
			value = args[i]
		}
		inv.given[opt.name] = value
	}
	if err := inv.takeOperands(operands); err != nil {
		return commandLine{}, err
	}
	if _, _, err := timeoutOf(inv); err != nil {
		return commandLine{}, err
	}
	if v.check != nil {
		if err := v.check(inv); err != nil {
			return commandLine{}, err
		}
	}
	return commandLine{action: runVerbAction, inv: inv}, nil
}

// option finds the option named name among the verb's.
func (v *verb) option(name string) (option, bool) {
	for _, o := range v.options {
		if o.name == name {
			return o, true
		}
	}
	return option{}, false
}

// takeOperands assigns the non-option arguments: URL, then FILE for the
// verbs that read one.
func (inv *invocation) takeOperands(operands []string) error {
	v := inv.verb
	limit := 1
	if v.takesFile {
		limit = 2
	}
	switch {
	case len(operands) == 0:
		return usageErrorf(v, "missing %s", operandName(v))
	case len(operands) > limit:
		return usageErrorf(v, "unexpected argument %q: %s takes %s", operands[limit], v.name, operandNames(v))
	}
	inv.url = operands[0]
	if len(operands) == 2 {
		inv.file = operands[1]
	}
	return nil
}

// operandName is what v calls its first non-option argument.
func operandName(v *verb) string {
	if v.operand != "" {
		return v.operand
	}
	return "URL"
}

// operandNames says which non-option arguments v takes, for an error.
func operandNames(v *verb) string {
	if v.takesFile {
		return "a URL and at most one FILE"
	}
	return "only a " + operandName(v)
}

// reportUsageError writes err and a pointer to the right usage on stderr.
func reportUsageError(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "weida: %v\n", err)
	if u, ok := err.(*usageError); ok && u.verb != nil {
		fmt.Fprintf(stderr, "usage: weida %s %s\n", u.verb.name, u.verb.synopsis)
		return
	}
	fmt.Fprintln(stderr, `run "weida --help" for the verbs and options`)
}

// joinNames lists option names for a message, e.g. "--echo or --sink".
func joinNames(opts []option) string {
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.name
	}
	return strings.Join(names, " or ")
}

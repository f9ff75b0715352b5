package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// RunChild runs the child side named by args[0] with its flags
// ("fanout-publisher", "bulk", "idle-server"), speaking the line protocol
// on in and out. lookup finds a system by name.
func RunChild(ctx context.Context, args []string, lookup func(string) (system.System, error), in io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("child: name a workload side: fanout-publisher, bulk or idle-server")
	}
	fs := flag.NewFlagSet("child "+args[0], flag.ContinueOnError)
	name := fs.String("system", "", "the system to run")
	size := fs.Int("size", 1024, "fanout-publisher: the payload size")
	total := fs.Int64("bytes", 1<<30, "bulk: the bytes to transfer")
	chunk := fs.Int("chunk", 64<<10, "bulk: the size of each write")
	profile := fs.String("cpuprofile", "", "write a CPU profile of this child here")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	sys, err := lookup(*name)
	if err != nil {
		return err
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cio := newChildIO(in, out)
	switch args[0] {
	case "fanout-publisher":
		return fanoutPublisherChild(ctx, sys, *size, cio)
	case "bulk":
		return bulkChild(ctx, sys, *total, *chunk, cio)
	case "idle-server":
		return idleServerChild(ctx, sys, cio)
	}
	return fmt.Errorf("child: unknown workload side %q", args[0])
}

// childProfileArgs asks a child for a CPU profile when ChildProfile is set.
func (r *Runner) childProfileArgs(caseID, system string) []string {
	if r.ChildProfile == "" {
		return nil
	}
	r.childProfiles++
	return []string{"-cpuprofile", fmt.Sprintf("%s.%s.%s.%d", r.ChildProfile, sanitize(caseID), sanitize(system), r.childProfiles)}
}

// sanitize makes s safe in a file name.
func sanitize(s string) string {
	out := []rune(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			out[i] = '_'
		}
	}
	return string(out)
}

package harness

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/weida-go/weida/tests/bench/wakeup"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// Machine describes where a run happened.
type Machine struct {
	CPU       string     `json:"cpu"`
	Cores     int        `json:"cores"`
	MemoryGiB float64    `json:"memory_gib"`
	Kernel    string     `json:"kernel"`
	OS        string     `json:"os"`
	Go        string     `json:"go"`
	LoadStart [3]float64 `json:"load_start"`
	LoadEnd   [3]float64 `json:"load_end"`
	Versions  []Version  `json:"versions"`
	// Wakeup is what waking a sleeping thread costs here: the floor under
	// every binding operation that waits, which crosses threads twice.
	Wakeup wakeup.Figures `json:"wakeup"`
	// WakeupErr says why Wakeup is zero, when it could not be measured.
	WakeupErr string `json:"wakeup_error,omitempty"`
}

// Version is one library's version as built into the harness.
type Version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// describeMachine reads the machine's description and the versions of the
// libraries measured.
func describeMachine() Machine {
	m := Machine{
		CPU:       cpuInfoField("model name"),
		Cores:     runtime.NumCPU(),
		MemoryGiB: float64(memTotalKiB()) / (1 << 20),
		Kernel:    strings.TrimSpace(command("uname", "-sr")),
		OS:        osRelease(),
		Go:        runtime.Version(),
		LoadStart: loadAverage(),
	}
	m.Versions = libraryVersions()
	if f, err := wakeup.Measure(wakeup.Rounds, wakeup.Gap); err != nil {
		m.WakeupErr = err.Error()
	} else {
		m.Wakeup = f
	}
	return m
}

// libraryVersions lists the modules under test from the build info, and
// the libzmq the binary is linked with.
func libraryVersions() []Version {
	wanted := []string{"github.com/quic-go/quic-go", "github.com/nats-io/nats-server/v2",
		"github.com/nats-io/nats.go", "gonum.org/v1/plot"}
	var out []Version
	if info, ok := debug.ReadBuildInfo(); ok {
		byPath := map[string]string{}
		for _, d := range info.Deps {
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Path + " (replaced)"
			}
			byPath[d.Path] = v
		}
		out = append(out, Version{"weida", "working tree of " + weidaModule})
		for _, p := range wanted {
			if v, ok := byPath[p]; ok {
				out = append(out, Version{p, v})
			}
		}
	}
	out = append(out, Version{"libzmq", zmq.Version()})
	// The bindings' interpreters, when there are any.
	for _, interp := range []struct{ name, program, flag string }{{"Python", "python3", "--version"}, {"Node", "node", "--version"}} {
		if v := strings.TrimSpace(command(interp.program, interp.flag)); v != "" && v != "unknown" {
			out = append(out, Version{interp.name, v})
		}
	}
	return out
}

// weidaModule is the module measured, built from the checkout (replace).
const weidaModule = "github.com/weida-go/weida"

// loadAverage is the 1, 5 and 15 minute load average.
func loadAverage() [3]float64 {
	var out [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return out
	}
	for i, f := range strings.Fields(string(b))[:3] {
		out[i], _ = strconv.ParseFloat(f, 64)
	}
	return out
}

func cpuInfoField(name string) string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func memTotalKiB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func osRelease() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "unknown"
}

func command(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unknown"
	}
	return string(out)
}

// filesystemOf names the kind of file system dir is on (what fsync costs
// depends on it), or says it could not tell.
func filesystemOf(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "file system unknown: " + err.Error()
	}
	switch st.Type {
	case 0xef53:
		return dir + " is on ext2/3/4"
	case 0x58465342:
		return dir + " is on XFS"
	case 0x9123683e:
		return dir + " is on Btrfs"
	case 0x01021994:
		return dir + " is on tmpfs, where fsync costs nothing"
	case 0x794c7630:
		return dir + " is on overlayfs"
	}
	return fmt.Sprintf("%s is on a file system of type %#x", dir, st.Type)
}

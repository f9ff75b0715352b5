package main

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// startHoldingServer serves /hold with a replier that accepts every request
// and never answers while the test runs: what --timeout is for.
func startHoldingServer(t *testing.T) string {
	t.Helper()
	rt, id := libraryRuntime(t)
	hold, err := rt.Listener().Replier("/hold")
	if err != nil {
		t.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		var held []*weida.Request
		for {
			ex, err := hold.Accept(context.Background(), 1<<20)
			if err != nil {
				return // the runtime ended with the test
			}
			held = append(held, ex)
		}
	}()
	return binding.URL("/hold")
}

func TestTimeoutEndsAVerbThatWaits(t *testing.T) {
	t.Parallel()
	hold := startHoldingServer(t)
	r := runWeida(t, []byte("never answered"), "request", "--timeout", "300ms", hold)
	if r.code != exitFailure || len(r.stdout) != 0 || !strings.Contains(r.stderr, "weida: timed out after 300ms") {
		t.Errorf("request --timeout: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, the timeout named",
			r.code, r.stdout, r.stderr)
	}

	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/quiet")
	r = runWeida(t, nil, "sub", "--timeout", "300ms", "--count", "1", pub.addr)
	if r.code != exitFailure || len(r.stdout) != 0 || !strings.Contains(r.stderr, "timed out after 300ms") ||
		!strings.Contains(r.stderr, "0 of 1 messages") {
		t.Errorf("sub --count 1 --timeout: exit %d, stdout %q, stderr %q; want exit 1 naming the timeout and the count",
			r.code, r.stdout, r.stderr)
	}
	// Without --count, sub's ordinary end is being stopped: a timeout too.
	r = runWeida(t, nil, "sub", "--timeout", "300ms", pub.addr)
	expectOutcome(t, r, exitOK, `subscribed filter=""`+"\n")
}

func TestTimeoutMustBeAPositiveDuration(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"soon", "0s", "-1s", "5"} {
		r := runWeida(t, nil, "send", "--timeout", bad, "weida://127.0.0.1:1/x")
		if r.code != exitUsage || !strings.Contains(r.stderr, "--timeout") {
			t.Errorf("--timeout %q: exit %d, stderr %q; want a usage error naming --timeout", bad, r.code, r.stderr)
		}
	}
}

func TestDashIsStdin(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
	r := runWeida(t, []byte("from stdin"), "request", echo.addr, "-")
	expectOutcome(t, r, exitOK, "reply bytes=10\n")
	if string(r.stdout) != "from stdin" {
		t.Errorf("stdout %q, want the stdin payload echoed", r.stdout)
	}
}

func TestHelpNamesEveryURLForm(t *testing.T) {
	t.Parallel()
	r := runWeida(t, nil, "--help")
	for _, form := range []string{"weida://sha256:", "weida://HOST:PORT/PATH", "weida+unix://", "weida+inproc://",
		"weida completion bash|zsh|fish", `FILE "-" is stdin`} {
		if !strings.Contains(string(r.stdout), form) {
			t.Errorf("--help does not mention %s", form)
		}
	}
}

func TestCompletionScriptsNameEveryVerbAndOption(t *testing.T) {
	t.Parallel()
	for shell := range completionShells {
		r := runWeida(t, nil, "completion", shell)
		if r.code != exitOK || r.stderr != "" {
			t.Fatalf("completion %s: exit %d, stderr %q", shell, r.code, r.stderr)
		}
		for _, v := range verbs {
			for _, word := range append([]string{v.name}, optionNames(v)...) {
				if shell == "fish" {
					word = strings.TrimPrefix(word, "--") // fish writes -l NAME
				}
				if !strings.Contains(string(r.stdout), word) {
					t.Errorf("the %s script does not name %s (verb %s)", shell, word, v.name)
				}
			}
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "powershell"}, {"completion", "bash", "zsh"}} {
		if r := runWeida(t, nil, args...); r.code != exitUsage || len(r.stdout) != 0 {
			t.Errorf("weida %q: exit %d, stdout %q; want a usage error", args, r.code, r.stdout)
		}
	}
}

// Each script parses in its own shell (zsh -n, fish -n), where installed.
func TestCompletionScriptsParse(t *testing.T) {
	t.Parallel()
	checks := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "-n"}}
	for shell, check := range checks {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(check[0]); err != nil {
				t.Skipf("no %s on PATH", check[0])
			}
			r := runWeida(t, nil, "completion", shell)
			path := writeFile(t, "completion."+shell, r.stdout)
			if out, err := exec.Command(check[0], append(check[1:], path)...).CombinedOutput(); err != nil {
				t.Errorf("%s refuses the script: %v\n%s", check[0], err, out)
			}
		})
	}
}

// The bash script, sourced into a real bash, completes what the parser takes.
func TestBashCompletionCompletes(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	cases := []struct {
		words []string
		want  []string
	}{
		{[]string{"weida", "s"}, []string{"send", "serve", "sub"}},
		{[]string{"weida", "sub", "--fr"}, []string{"--framing"}},
		{[]string{"weida", "sub", "--framing", ""}, []string{"length", "line", "nul", "raw"}},
		{[]string{"weida", "request", "--t"}, []string{"--timeout", "--trust"}},
		{[]string{"weida", "request", "--tr"}, []string{"--trust"}},
		{[]string{"weida", "broker", "--tr"}, []string{"--trust-out"}},
		{[]string{"weida", "completion", "z"}, []string{"zsh"}},
	}
	for _, c := range cases {
		script := `source <("$WEIDA" completion bash); COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _weida; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, append([]string{"-c", script, "bash"}, c.words...)...)
		cmd.Env = append(cmd.Environ(), "WEIDA="+weidaBinary)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", c.words, err)
		}
		got := strings.Fields(string(out))
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("completing %q offered %q, want %q", c.words, got, c.want)
		}
	}
}

// The fish script, sourced into a real fish, completes verbs and values.
func TestFishCompletionCompletes(t *testing.T) {
	t.Parallel()
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("no fish on PATH")
	}
	script := writeFile(t, "weida.fish", runWeida(t, nil, "completion", "fish").stdout)
	cases := map[string][]string{
		"weida s":              {"send", "serve", "sub"},
		"weida sub --framing ": {"length", "line", "nul", "raw"},
		"weida request --time": {"--timeout"},
		"weida completion ":    {"bash", "fish", "zsh"},
	}
	for line, want := range cases {
		out, err := exec.Command(fish, "-c", "source $argv[1]; complete -C $argv[2]", script, line).Output()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("completing %q offered %q, want %q", line, got, want)
		}
	}
}

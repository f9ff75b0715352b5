package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// `weida completion bash|zsh|fish` prints a completion script for the
// shell on stdout. Every script is generated from the verb and option
// tables the parser uses, so completion cannot fall behind the grammar.
//
//	source <(weida completion bash)    # in ~/.bashrc
//	source <(weida completion zsh)     # in ~/.zshrc, after compinit
//	weida completion fish | source     # in ~/.config/fish/config.fish

// completionShells are the shells `weida completion` writes for.
var completionShells = map[string]func(io.Writer){
	"bash": writeBashCompletion,
	"zsh":  writeZshCompletion,
	"fish": writeFishCompletion,
}

// completionSynopsis is the builtin's line in the usage text.
const completionSynopsis = "weida completion bash|zsh|fish"

// parseCompletion reads what follows "completion": exactly one known shell.
func parseCompletion(args []string) (commandLine, error) {
	if len(args) != 1 {
		return commandLine{}, usageErrorf(nil, "usage: %s (one shell)", completionSynopsis)
	}
	if _, ok := completionShells[args[0]]; !ok {
		return commandLine{}, usageErrorf(nil, "no completion for shell %q: %s", args[0], completionSynopsis)
	}
	return commandLine{action: showCompletion, shell: args[0]}, nil
}

// optionChoices are the operands an option takes from a fixed list.
func optionChoices(o option) []string {
	if o.name == optFraming.name {
		return framingNames
	}
	return nil
}

// takesPath reports whether an option's operand is a file or directory.
func takesPath(o option) bool {
	switch o.value {
	case "PATH", "DIR", "FILE":
		return true
	}
	return false
}

// topWords are what may follow "weida" itself.
func topWords() []string {
	words := []string{"completion", "help", "--help", "--version"}
	for _, v := range verbs {
		words = append(words, v.name)
	}
	return words
}

func writeBashCompletion(w io.Writer) {
	var b strings.Builder
	b.WriteString("# bash completion for weida: source <(weida completion bash)\n_weida() {\n")
	b.WriteString("    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\"\"\n")
	fmt.Fprintf(&b, "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return\n    fi\n",
		strings.Join(topWords(), " "))
	b.WriteString("    case \"$prev\" in\n")
	var paths []string
	for _, o := range verbOptions() {
		if choices := optionChoices(o.option); choices != nil {
			fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", o.name, strings.Join(choices, " "))
		} else if takesPath(o.option) {
			paths = append(paths, o.name)
		} else if o.value != "" {
			fmt.Fprintf(&b, "    %s) COMPREPLY=(); return ;;\n", o.name)
		}
	}
	if len(paths) > 0 {
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(paths, "|"))
	}
	b.WriteString("    esac\n    case \"${COMP_WORDS[1]}\" in\n")
	b.WriteString("    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "    %s) opts=%q ;;\n", v.name, strings.Join(optionNames(v), " ")+" --help")
	}
	b.WriteString("    *) return ;;\n    esac\n")
	b.WriteString("    if [[ \"$cur\" == -* ]]; then\n        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n" +
		"    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\ncomplete -o filenames -F _weida weida\n")
	_, _ = io.WriteString(w, b.String())
}

func writeZshCompletion(w io.Writer) {
	var b strings.Builder
	b.WriteString("#compdef weida\n# zsh completion for weida: source <(weida completion zsh), after compinit\n_weida() {\n")
	b.WriteString("    local -a verbs\n    verbs=(\n")
	fmt.Fprintf(&b, "        %s\n", zshQuote("completion:print a shell completion script"))
	for _, v := range verbs {
		fmt.Fprintf(&b, "        %s\n", zshQuote(v.name+":"+v.summary))
	}
	b.WriteString("    )\n    if (( CURRENT == 2 )); then\n        _describe verb verbs\n        return\n    fi\n")
	b.WriteString("    case $words[2] in\n    completion) _values shell bash zsh fish ;;\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "    %s)\n        _arguments \\\n", v.name)
		for _, o := range v.options {
			spec := o.name + "[" + zshEscape(firstClause(o.help)) + "]"
			switch {
			case optionChoices(o) != nil:
				spec += ":" + o.value + ":(" + strings.Join(optionChoices(o), " ") + ")"
			case takesPath(o):
				spec += ":" + o.value + ":_files"
			case o.value != "":
				spec += ":" + o.value + ": "
			}
			fmt.Fprintf(&b, "            %s \\\n", zshQuote(spec))
		}
		b.WriteString("            '*:argument:_files' ;;\n")
	}
	b.WriteString("    esac\n}\ncompdef _weida weida\n")
	_, _ = io.WriteString(w, b.String())
}

func writeFishCompletion(w io.Writer) {
	var b strings.Builder
	b.WriteString("# fish completion for weida: weida completion fish | source\ncomplete -c weida -f\n")
	b.WriteString("complete -c weida -n __fish_use_subcommand -a completion -d 'print a shell completion script'\n")
	b.WriteString("complete -c weida -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "complete -c weida -n __fish_use_subcommand -a %s -d %s\n", v.name, fishQuote(v.summary))
	}
	for _, o := range verbOptions() {
		when := fishQuote("__fish_seen_subcommand_from " + strings.Join(o.verbs, " "))
		line := fmt.Sprintf("complete -c weida -n %s -l %s", when, strings.TrimPrefix(o.name, "--"))
		switch {
		case optionChoices(o.option) != nil:
			line += " -x -a " + fishQuote(strings.Join(optionChoices(o.option), " "))
		case takesPath(o.option):
			line += " -r -F"
		case o.value != "":
			line += " -x"
		}
		fmt.Fprintf(&b, "%s -d %s\n", line, fishQuote(firstClause(o.help)))
	}
	fmt.Fprintf(&b, "complete -c weida -n %s -F\n", fishQuote("__fish_seen_subcommand_from "+strings.Join(verbNames(), " ")))
	_, _ = io.WriteString(w, b.String())
}

// optionNames are v's option names, sorted.
func optionNames(v *verb) []string {
	names := make([]string, len(v.options))
	for i, o := range v.options {
		names[i] = o.name
	}
	sort.Strings(names)
	return names
}

func verbNames() []string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	return names
}

// firstClause is an option's help up to its first "; ", ": " or " (":
// short enough for a completion menu.
func firstClause(help string) string {
	for _, stop := range []string{"; ", ": ", " ("} {
		if i := strings.Index(help, stop); i > 0 {
			help = help[:i]
		}
	}
	return strings.TrimSpace(help)
}

// zshEscape protects the characters _arguments gives meaning to in a description.
func zshEscape(s string) string {
	return strings.NewReplacer("[", "\\[", "]", "\\]", ":", "\\:").Replace(s)
}

// zshQuote and fishQuote single-quote s for their shells.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

package docs

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A markdownDoc is what the checks need of one Markdown file: its headings'
// anchors and section numbers, and its links, with code left out.
type markdownDoc struct {
	anchors map[string]bool
	// sections holds the numbers of numbered headings ("8.3.1" for
	// "#### 8.3.1 Where keys are required") and of the numbered list items
	// directly under one ("1.5" for item 5 of §1), the way code cites both.
	sections map[string]bool
	links    []link
}

type link struct {
	line   int
	target string
}

var (
	headingRe    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	sectionRe    = regexp.MustCompile(`^§?(\d+(?:\.\d+)*)\.?(?:\s|$)`)
	inlineLinkRe = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRe     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	codeSpanRe   = regexp.MustCompile("`+[^`]*`+")
	linkTextRe   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	listItemRe   = regexp.MustCompile(`^(\d+)\.\s`)
)

// parseMarkdown reads headings and links from text, skipping fenced code
// blocks and inline code spans.
func parseMarkdown(text string) markdownDoc {
	doc := markdownDoc{anchors: map[string]bool{}, sections: map[string]bool{}}
	seen := map[string]int{}
	fence, section := "", ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			title := m[2]
			slug := slugify(title)
			if n := seen[slug]; n > 0 {
				doc.anchors[slug+"-"+strconv.Itoa(n)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
			section = ""
			if s := sectionRe.FindStringSubmatch(title); s != nil {
				section = s[1]
				doc.sections[section] = true
			}
			continue
		}
		if m := listItemRe.FindStringSubmatch(line); m != nil && section != "" {
			doc.sections[section+"."+m[1]] = true
		}
		if m := refDefRe.FindStringSubmatch(line); m != nil {
			doc.links = append(doc.links, link{i + 1, m[1]})
			continue
		}
		for _, m := range inlineLinkRe.FindAllStringSubmatch(codeSpanRe.ReplaceAllString(line, ""), -1) {
			doc.links = append(doc.links, link{i + 1, m[1]})
		}
	}
	return doc
}

// slugify makes a heading's anchor the way GitHub does: inline markup
// dropped, lower case, every character but letters, digits, '-', '_' and
// spaces removed, spaces turned into '-'.
func slugify(title string) string {
	title = linkTextRe.ReplaceAllString(title, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

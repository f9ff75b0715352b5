package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// number formats a figure with three significant digits, large ones with
// a k or M suffix: 0.0123, 1.23, 123, 12.3 k, 1.23 M.
func number(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "—"
	case a >= 1e6:
		return sig(v/1e6) + " M"
	case a >= 1e4:
		return sig(v/1e3) + " k"
	}
	return sig(v)
}

// sig is v with three significant digits and no exponent.
func sig(v float64) string {
	if v == 0 {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	if digits < 0 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// times formats a ratio: 0.0042×, 0.42×, 1.00×, 12.5×, 1565×.
func times(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	case r > 0 && r < 0.1:
		return sig(r) + "×" // two decimals would round it to nothing
	}
	return fmt.Sprintf("%.2f×", r)
}

// withUnit appends a unit when there is one.
func withUnit(v, unit string) string {
	if unit == "" {
		return v
	}
	return v + " " + unit
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// signed formats a difference as number does, always with its sign:
// +12.3, −0.456, 0.
func signed(v float64) string {
	switch {
	case v > 0:
		return "+" + number(v)
	case v < 0:
		return "−" + number(-v)
	}
	return number(v)
}

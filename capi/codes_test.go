package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

// headerEnum parses `enum name { NAME = N, ... }` from weida.h.
func headerEnum(t *testing.T, enum string) map[string]int {
	t.Helper()
	body := regexp.MustCompile(`(?s)enum ` + enum + ` \{(.*?)\};`).FindStringSubmatch(readHeader(t))
	if body == nil {
		t.Fatalf("weida.h has no enum %s", enum)
	}
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`(WEIDA_\w+)\s*=\s*(\d+)`).FindAllStringSubmatch(body[1], -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// surfaceNames is SURFACE.md §3.3, the names every binding maps by.
var surfaceNames = []string{1: "WEIDA_ERUNTIME", "WEIDA_EINVALID_ADDRESS", "WEIDA_EINVALID_PATH",
	"WEIDA_EINVALID_FINGERPRINT", "WEIDA_EALREADY_REGISTERED", "WEIDA_EADDRINUSE", "WEIDA_ENOTCONN",
	"WEIDA_ECONNLOST", "WEIDA_ENEGOTIATION", "WEIDA_EPROTOCOL", "WEIDA_EREJECTED", "WEIDA_EUNKNOWN_ENDPOINT",
	"WEIDA_EUNSUPPORTED", "WEIDA_ENOPARKED", "WEIDA_ENOREPLY", "WEIDA_ECANCELED", "WEIDA_EEXPIRED",
	"WEIDA_EINDETERMINATE", "WEIDA_ELIMIT", "WEIDA_ENODATAGRAMS", "WEIDA_ETOOLARGE", "WEIDA_ETLS",
	"WEIDA_EUNTRUSTED", "WEIDA_EUNTRUSTED_PRINCIPAL", "WEIDA_EIO", "WEIDA_ETRANSPORT"}

var surfaceABIOnly = map[string]int{"WEIDA_EBADHANDLE": 100, "WEIDA_EINVAL": 101, "WEIDA_ETIMEDOUT": 102,
	"WEIDA_END": 103, "WEIDA_EINTERNAL": 104, "WEIDA_ETRUNCATED": 105}

func TestErrorCodesMirrorTheGoKinds(t *testing.T) {
	kinds := errs.Kinds()
	if len(kinds) != 26 {
		t.Fatalf("errs.Kinds() has %d kinds; the C table has 26: add the new kind to weida.h, kindCodes and SURFACE.md §3.3", len(kinds))
	}
	header := headerEnum(t, "weida_code")
	accounted := map[string]bool{"WEIDA_OK": true}
	if header["WEIDA_OK"] != 0 {
		t.Errorf("WEIDA_OK = %d, want 0", header["WEIDA_OK"])
	}
	for i, k := range kinds {
		if int(k) != i+1 {
			t.Errorf("kind %v has number %d, want %d (codes 1..26 are contiguous)", k, int(k), i+1)
		}
		info, ok := kindCodes[k]
		if !ok {
			t.Errorf("kind %v has no C code name in kindCodes", k)
			continue
		}
		if info.name != surfaceNames[int(k)] {
			t.Errorf("kind %v is %s in kindCodes, %s in SURFACE.md §3.3", k, info.name, surfaceNames[int(k)])
		}
		if n, ok := header[info.name]; !ok || n != int(k) {
			t.Errorf("weida.h has %s = %d (declared %v), want %d", info.name, n, ok, int(k))
		}
		accounted[info.name] = true
	}
	if len(kindCodes) != len(kinds) {
		t.Errorf("kindCodes has %d entries for %d kinds", len(kindCodes), len(kinds))
	}
	for name, n := range surfaceABIOnly {
		if header[name] != n {
			t.Errorf("weida.h has %s = %d, want %d", name, header[name], n)
		}
		if info, ok := abiCodes[n]; !ok || info.name != name {
			t.Errorf("abiCodes[%d] = %q, want %s", n, info.name, name)
		}
		accounted[name] = true
	}
	if len(abiCodes) != len(surfaceABIOnly) {
		t.Errorf("abiCodes has %d codes, SURFACE.md §3.3 names %d", len(abiCodes), len(surfaceABIOnly))
	}
	for name := range header {
		if !accounted[name] {
			t.Errorf("weida.h declares %s, which is neither a kind nor an ABI code", name)
		}
	}
}

func TestCodeOf(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil is OK", nil, codeOK},
		{"a kind is its number", errs.New(errs.KindRejected, "no"), 11},
		{"a wrapped kind", errs.Wrap(errs.KindIndeterminate, errs.New(errs.KindConnectionLost, "x"), "y"), 18},
		{"an ABI error", invalid("bad"), codeInval},
		{"a bad handle", badHandle(7), codeBadHandle},
		{"an error with no kind", strconvErr(), codeRuntime},
	}
	for _, c := range cases {
		if got := codeOf(c.err); got != c.want {
			t.Errorf("%s: codeOf = %d, want %d", c.name, got, c.want)
		}
	}
}

func strconvErr() error {
	_, err := strconv.Atoi("x")
	return err
}

func TestHeaderConstantsMatchTheLibrary(t *testing.T) {
	abi := regexp.MustCompile(`#define WEIDA_ABI_VERSION (\d+)`).FindStringSubmatch(readHeader(t))
	if abi == nil || abi[1] != strconv.Itoa(abiVersion) {
		t.Errorf("WEIDA_ABI_VERSION in weida.h is %v, the library implements %d", abi, abiVersion)
	}
	meta := headerEnum(t, "weida_meta_field")
	for name, want := range map[string]int{"WEIDA_META_ENDPOINT": metaEndpoint, "WEIDA_META_CONTENT_TYPE": metaContentType,
		"WEIDA_META_TOPIC": metaTopic, "WEIDA_META_PEER": metaPeer, "WEIDA_META_TRACEPARENT": metaTraceparent,
		"WEIDA_META_TRACESTATE": metaTracestate, "WEIDA_META_CONTENT_LEN": metaContentLen,
		"WEIDA_META_SEQUENCE": metaSequence, "WEIDA_META_LAYER": metaLayer} {
		if meta[name] != want {
			t.Errorf("weida.h has %s = %d, the library reads %d", name, meta[name], want)
		}
	}
	auth := headerEnum(t, "weida_client_auth")
	for name, want := range map[string]int{"WEIDA_CLIENT_ANONYMOUS_OK": clientAnonymousOK,
		"WEIDA_CLIENT_ANY_KEY": clientAnyKey, "WEIDA_CLIENT_TRUSTED": clientTrusted} {
		if auth[name] != want {
			t.Errorf("weida.h has %s = %d, the library reads %d", name, auth[name], want)
		}
	}
}

func TestStaticTextsFitTheInternStore(t *testing.T) {
	total := len(version) + 1 + len("weida/0") + 1 + len("WEIDA_E?: not a weida code") + 1
	for code := codeOK; code <= lastABIOnly; code++ {
		if info, ok := describe(code); ok {
			total += len(info.name) + 2 + len(info.text) + 1
		}
	}
	if total > 8192 {
		t.Errorf("the static texts need %d bytes; bridge.c interns at most 8192", total)
	}
}

package main

import (
	"testing"

	weida "github.com/weida-go/weida/core"
)

// An absent number field reads as its default with present = 0: the C
// caller gets the protocol's meaning even when it ignores present.
func TestAbsentNumberFieldsReadAsTheirDefaults(t *testing.T) {
	cases := []struct {
		name  string
		field int
		want  uint64
	}{
		{"delivery attempt: absent is the first", metaAttempt, 1},
		{"achieved: absent claims nothing", metaAchieved, 0},
		{"content length", metaContentLen, 0},
		{"report id", metaReportID, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok, err := metaUint(weida.IncomingMeta{}, c.field)
			if err != nil || ok || v != c.want {
				t.Errorf("metaUint(empty meta, %d) = %d, %v, %v; want %d, false, nil", c.field, v, ok, err, c.want)
			}
		})
	}
}

func TestNumberAndTextFieldsAreNotInterchangeable(t *testing.T) {
	if _, _, err := metaText(weida.IncomingMeta{}, metaAttempt); err == nil {
		t.Error("the delivery attempt read as text: want an error naming it a number field")
	}
	if _, _, err := metaUint(weida.IncomingMeta{}, metaTopic); err == nil {
		t.Error("the topic read as a number: want an error naming it a text field")
	}
}

package main

import (
	"testing"
)

// weida_dish_recv's kind is the library's DishMessageKind: renumbering one
// side only would make a datagram read as a segment.
func TestDishKindMirrorsTheLibrary(t *testing.T) {
	want := map[string]int{"WEIDA_DISH_SEGMENT": dishKindSegment, "WEIDA_DISH_DATAGRAM": dishKindDatagram}
	got := headerEnum(t, "weida_dish_kind")
	if len(got) != len(want) {
		t.Errorf("enum weida_dish_kind has %d values in weida.h, the library %d", len(got), len(want))
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("weida.h has %s = %d, the library %d", name, got[name], n)
		}
	}
}

// A datagram segment has no header, so its msg answers topic, segment and
// layer itself; every other field reads absent, and a field asked as the
// wrong kind is still refused.
func TestDatagramMetaAnswersFromItsOwnFields(t *testing.T) {
	d := &datagramFields{topic: "cam/1", segment: 42}
	texts := []struct {
		field   int
		want    string
		present bool
	}{
		{metaTopic, "cam/1", true},
		{metaEndpoint, "", false},
		{metaPeer, "", false},
	}
	for _, c := range texts {
		v, ok, err := d.text(c.field)
		if err != nil || ok != c.present || v != c.want {
			t.Errorf("text(%d) = %q, %v, %v; want %q, %v, nil", c.field, v, ok, err, c.want, c.present)
		}
	}
	numbers := []struct {
		field   int
		want    uint64
		present bool
	}{
		{metaSegment, 42, true},
		{metaLayer, 0, true},
		{metaSequence, 0, false},
		{metaAttempt, 1, false}, // the protocol's default, as on any message
	}
	for _, c := range numbers {
		v, ok, err := d.number(c.field)
		if err != nil || ok != c.present || v != c.want {
			t.Errorf("number(%d) = %d, %v, %v; want %d, %v, nil", c.field, v, ok, err, c.want, c.present)
		}
	}
	if _, _, err := d.text(metaSegment); err == nil {
		t.Error("the segment number read as text: want an error naming it a number field")
	}
	if _, _, err := d.number(metaTopic); err == nil {
		t.Error("the topic read as a number: want an error naming it a text field")
	}
}

module github.com/weida-go/weida

go 1.26

require (
	github.com/fxamacker/cbor/v2 v2.10.0
	github.com/quic-go/quic-go v0.65.0
)

module github.com/weida-go/weida

go 1.26.0

require (
	github.com/fxamacker/cbor/v2 v2.10.0
	github.com/quic-go/quic-go v0.65.0
)

require (
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/crypto v0.54.0 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

#!/usr/bin/env bash
# One-off: the fixed test certificates QUIC flows use (crates/tern-sim/certs/). Run once and
# committed; Tern never generates keys or certificates at run time, so every run's TLS
# handshake carries the same certificate bytes.
#
# A CA (Ed25519, self-signed) and the server's certificate (Ed25519, signed by the CA, for the
# name "server.tern.test"), valid for 100 years from the day they were made. Ed25519 because
# its signatures are deterministic (RFC 8032 §5.1.6) and always 64 bytes: an ECDSA signature
# draws a random nonce and its DER length varies (70–72 B), which would change handshake sizes.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/crates/tern-sim/certs"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
openssl genpkey -algorithm ed25519 -out ca.key
openssl req -x509 -key ca.key -subj "/CN=Tern test CA" -days 36525 -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign"
openssl genpkey -algorithm ed25519 -out server.key
openssl req -new -key server.key -subj "/CN=server.tern.test" -out server.csr
printf 'basicConstraints=critical,CA:FALSE\nsubjectAltName=DNS:server.tern.test\nextendedKeyUsage=serverAuth\n' > ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 36500 \
    -extfile ext -out server.pem
openssl x509 -in ca.pem -outform DER -out "$out/ca.der"
openssl x509 -in server.pem -outform DER -out "$out/server.der"
openssl pkcs8 -topk8 -nocrypt -in server.key -outform DER -out "$out/server.key.der"

# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=sh
#
# tls.sh - sourced by the bridge tests that run a TLS broker:
#   test_ca DIR    a CA of the test's own (DIR/ca.key, ca.crt, CN
#                  phyllo-test-ca) and a server certificate it signed for
#                  localhost and 127.0.0.1 (DIR/server.key, server.crt),
#                  P-256, valid 2 days; status 0, else openssl's
test_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=phyllo-test-ca -keyout "$1/ca.key" -out "$1/ca.crt" 2>/dev/null &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-subj /CN=localhost -keyout "$1/server.key" -out "$1/server.csr" 2>/dev/null &&
		printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$1/san.ext" &&
		openssl x509 -req -in "$1/server.csr" -CA "$1/ca.crt" -CAkey "$1/ca.key" \
			-CAcreateserial -days 2 -extfile "$1/san.ext" -out "$1/server.crt" 2>/dev/null
}

#!/bin/sh
# Makes a throwaway device fleet in DIR for the mutual-TLS (RFC 8705) tests, every key 0600:
#   fleet-ca.pem/.key      the fleet's CA; the mTLS Glewlwyd trusts it for client certificates
#   device.pem/.key        a device certificate from the fleet CA (P-256, clientAuth), CN=latchkey-device-0001
#   other-ca.pem/.key      a second CA nobody trusts
#   other-device.pem/.key  a certificate from the other CA with the same subject as device.pem
#   expired.pem            for device.key, from the fleet CA, valid 2020-01-01..2020-12-31
#   self-signed.pem/.key   a self-signed client certificate (for self_signed_tls_client_auth)
# EC P-256 keys throughout: generating them takes milliseconds, so the IdP starts fast.
# usage: make_fleet_certs.sh DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
mkdir -p "$dir"
cd "$dir"
umask 077
q() { "$@" 2>/dev/null; }
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
subject="/CN=latchkey-device-0001"
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' > client.ext
for ca in fleet-ca other-ca; do
    q openssl req -x509 $ec -nodes -days 2 -subj "/CN=Latchkey test $ca" -keyout "$ca.key" -out "$ca.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
done
# issue NAME CA: a key, a request and a 2-day client certificate from CA
issue() {
    q openssl req $ec -nodes -subj "$subject" -keyout "$1.key" -out "$1.csr"
    q openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days 2 -extfile client.ext -out "$1.pem"
}
issue device fleet-ca
issue other-device other-ca
sh "$here/../http/issue_dated.sh" fleet-ca.pem fleet-ca.key device.csr expired.pem 20200101000000Z 20201231000000Z \
    "basicConstraints = CA:FALSE" "keyUsage = critical, digitalSignature" "extendedKeyUsage = clientAuth"
q openssl req -x509 $ec -nodes -days 2 -subj "/CN=latchkey-self-signed-device" -keyout self-signed.key -out self-signed.pem \
    -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
    -addext "extendedKeyUsage=clientAuth"
rm -rf cadb.* ./*.csr ./*.srl client.ext
chmod 600 ./*.key ./*.pem
for f in fleet-ca device other-device expired self-signed; do test -s "$f.pem"; done

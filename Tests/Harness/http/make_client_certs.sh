#!/bin/sh
# Makes throwaway TLS client identities in $1 for the LatchkeyHTTP client-certificate tests:
#   client-ca.pem/.key            the CA servers trust for client certificates (RSA 2048)
#   rsa.pem/.key                  client cert, RSA 2048, key PKCS#8; rsa-pkcs1.key: the same key as PKCS#1
#   ec.pem/.key                   client cert, P-256, key PKCS#8; ec-sec1.key: the same key as SEC1
#   p384.pem/.key                 client cert, P-384
#   p521.pem/.key, rsa1024.pem/.key   well-formed, but key types latchkey refuses
#   other.key                     an RSA 2048 key that no certificate here belongs to
#   encrypted-pkcs8.key, encrypted-sec1.key   ec.key encrypted (PKCS#8 PBES2, and traditional PEM)
#   expired.pem, future.pem       for rsa.key, valid 2020-01-01..2020-12-31 and 2099-01-01..2100-01-01
#   server-only.pem               for rsa.key, extendedKeyUsage=serverAuth only
#   chain.pem                     a leaf for rsa.key issued by intermediate.pem, then intermediate.pem
#                                 (itself issued by client-ca.pem)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
cd "$dir"
q() { "$@" 2>/dev/null; }
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n' > client.ext
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n' > server-only.ext
printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n' > ca.ext
q openssl req -x509 -newkey rsa:2048 -nodes -keyout client-ca.key -out client-ca.pem -days 2 -subj "/CN=Latchkey Client CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# issue NAME SUBJECT EXTFILE ISSUER -- KEYGEN-ARGS...: a key, a CSR and a 2-day certificate from ISSUER
issue() {
    name=$1 subject=$2 ext=$3 issuer=$4
    shift 4
    q openssl req "$@" -nodes -keyout "$name.key" -out "$name.csr" -subj "$subject"
    q openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -CAcreateserial -days 2 \
        -extfile "$ext" -out "$name.pem"
}
issue rsa "/CN=latchkey rsa client/O=Latchkey Tests" client.ext client-ca -newkey rsa:2048
issue ec "/CN=latchkey ec client" client.ext client-ca -newkey ec -pkeyopt ec_paramgen_curve:prime256v1
issue p384 "/CN=latchkey p384 client" client.ext client-ca -newkey ec -pkeyopt ec_paramgen_curve:secp384r1
issue p521 "/CN=latchkey p521 client" client.ext client-ca -newkey ec -pkeyopt ec_paramgen_curve:secp521r1
issue rsa1024 "/CN=latchkey rsa1024 client" client.ext client-ca -newkey rsa:1024
issue intermediate "/CN=Latchkey Client Intermediate" ca.ext client-ca -newkey rsa:2048
q openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other.key
q openssl rsa -in rsa.key -traditional -out rsa-pkcs1.key
q openssl ec -in ec.key -out ec-sec1.key
q openssl pkcs8 -topk8 -in ec.key -v2 aes-256-cbc -passout pass:secret -out encrypted-pkcs8.key
q openssl ec -in ec.key -aes256 -passout pass:secret -out encrypted-sec1.key

q openssl x509 -req -in rsa.csr -CA client-ca.pem -CAkey client-ca.key -CAcreateserial -days 2 -extfile server-only.ext \
    -out server-only.pem
q openssl x509 -req -in rsa.csr -CA intermediate.pem -CAkey intermediate.key -CAcreateserial -days 2 -extfile client.ext \
    -out chain-leaf.pem
cat chain-leaf.pem intermediate.pem > chain.pem

# openssl x509 cannot back-date in 3.0; issue_dated.sh uses `openssl ca`, which takes explicit dates.
for dates in "expired 20200101000000Z 20201231000000Z" "future 20990101000000Z 21000101000000Z"; do
    set -- $dates
    sh "$here/issue_dated.sh" client-ca.pem client-ca.key rsa.csr "$1.pem" "$2" "$3" \
        "basicConstraints = CA:FALSE" "keyUsage = digitalSignature" "extendedKeyUsage = clientAuth"
done
for f in rsa ec p384 p521 rsa1024 expired future server-only chain; do test -s "$f.pem"; done
for f in rsa-pkcs1 ec-sec1 other encrypted-pkcs8 encrypted-sec1; do test -s "$f.key"; done

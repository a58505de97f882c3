#!/bin/sh
# Makes a throwaway PKI in $1 for the LatchkeyHTTP TLS tests:
#   ca.pem/ca.key          test root CA
#   other-ca.pem           an unrelated CA (the "wrong CA" case)
#   localhost.pem/.key     valid server certificate for DNS:localhost
#   wrong.pem/.key         valid, but for DNS:wrong.example
#   expired.pem/.key       for DNS:localhost, validity 2020-01-01 .. 2020-12-31 (made with `openssl ca`)
#   ec-ca.pem, ec-localhost.pem/.key   a P-256 CA and a P-256 DNS:localhost certificate it signed
#   ip-only, ip-wrong, ip-as-dns, ip-as-cn, ip-and-dns (.pem/.key)   for https://127.0.0.1: SAN
#                          IP:127.0.0.1; IP:127.0.0.2; DNS:127.0.0.1; no SAN, CN=127.0.0.1;
#                          DNS:localhost + IP:127.0.0.1 + IP:::1 (all with CN=127.0.0.1)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
cd "$dir"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=Latchkey Test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj "/CN=Other CA" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n' > localhost.ext
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:wrong.example\n' > wrong.ext
for name in localhost wrong expired; do
    cn=localhost; [ "$name" = wrong ] && cn=wrong.example
    openssl req -newkey rsa:2048 -nodes -keyout $name.key -out $name.csr -subj "/CN=$cn" 2>/dev/null
done
openssl x509 -req -in localhost.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile localhost.ext -out localhost.pem 2>/dev/null
openssl x509 -req -in wrong.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile wrong.ext -out wrong.pem 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec-ca.key -out ec-ca.pem -days 2 \
    -subj "/CN=Latchkey Test EC CA" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec-localhost.key -out ec-localhost.csr -subj "/CN=localhost" 2>/dev/null
openssl x509 -req -in ec-localhost.csr -CA ec-ca.pem -CAkey ec-ca.key -CAcreateserial -days 2 -extfile localhost.ext -out ec-localhost.pem 2>/dev/null
# openssl x509 cannot back-date in 3.0; issue_dated.sh uses `openssl ca`, which takes explicit dates.
sh "$here/issue_dated.sh" ca.pem ca.key expired.csr expired.pem 20200101000000Z 20201231000000Z \
    "basicConstraints = CA:FALSE" "keyUsage = digitalSignature,keyEncipherment" "extendedKeyUsage = serverAuth" \
    "subjectAltName = DNS:localhost"
# IP-address certificates (issue 38): only an iPAddress SAN may name https://127.0.0.1.
for spec in "ip-only:IP:127.0.0.1" "ip-wrong:IP:127.0.0.2" "ip-as-dns:DNS:127.0.0.1" "ip-as-cn:" \
            "ip-and-dns:DNS:localhost,IP:127.0.0.1,IP:::1"; do
    name=${spec%%:*}; san=${spec#*:}
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' > $name.ext
    [ -n "$san" ] && printf 'subjectAltName=%s\n' "$san" >> $name.ext
    openssl req -newkey rsa:2048 -nodes -keyout $name.key -out $name.csr -subj "/CN=127.0.0.1" 2>/dev/null
    openssl x509 -req -in $name.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile $name.ext -out $name.pem 2>/dev/null
done

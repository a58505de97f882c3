#!/bin/sh
# Issues a certificate with explicit validity dates, which `openssl x509 -req` cannot do in OpenSSL 3.0
# (no back-dating); `openssl ca` can:
#   issue_dated.sh CA.pem CA.key REQUEST.csr OUT.pem START END EXTENSION...
# START/END are YYYYMMDDHHMMSSZ; each EXTENSION is one config line ("keyUsage = digitalSignature").
# The subject is the request's CN only. The CA database lives in a fresh folder next to OUT.pem.
set -eu
ca=$1 key=$2 csr=$3 out=$4 start=$5 end=$6
shift 6
db=$(mktemp -d "$(dirname "$out")/cadb.XXXXXX")
: > "$db/index.txt"
echo 1000 > "$db/serial"
{
    cat <<CNF
[ ca ]
default_ca = test
[ test ]
dir = $db
database = \$dir/index.txt
serial = \$dir/serial
new_certs_dir = \$dir
certificate = $ca
private_key = $key
default_md = sha256
policy = anything
copy_extensions = none
unique_subject = no
[ anything ]
commonName = supplied
[ extensions ]
CNF
    for line in "$@"; do echo "$line"; done
} > "$db/ca.cnf"
openssl ca -batch -config "$db/ca.cnf" -extensions extensions -startdate "$start" -enddate "$end" \
    -in "$csr" -out "$out" -notext 2>/dev/null
test -s "$out"

#ifndef LATCHKEY_CMBEDTLS_SHIM_H
#define LATCHKEY_CMBEDTLS_SHIM_H
// Every mbedTLS 2.28 header Latchkey uses; Swift sees them through this one module.
#include <mbedtls/version.h>
#include <mbedtls/error.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/md.h>
#include <mbedtls/sha256.h>
#include <mbedtls/sha512.h>
#include <mbedtls/gcm.h>
#include <mbedtls/hkdf.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/bignum.h>
#include <mbedtls/rsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/pk.h>
#include <mbedtls/asn1write.h>
#include <mbedtls/base64.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <mbedtls/debug.h>
#include <mbedtls/constant_time.h>
#include <stdlib.h>

// An entropy context that Swift only ever holds as an untyped pointer. The struct (Debian enables
// HAVEGE, whose state is kilobytes of fixed arrays) would otherwise get Swift value witnesses:
// 57 KB of the static binary for a type Swift never copies.
static inline void *latchkey_entropy_new(void) {
    mbedtls_entropy_context *context = calloc(1, sizeof(mbedtls_entropy_context));
    if (context != NULL) mbedtls_entropy_init(context);
    return context;
}

static inline void latchkey_entropy_free(void *context) {
    if (context == NULL) return;
    mbedtls_entropy_free(context);
    free(context);
}
#endif

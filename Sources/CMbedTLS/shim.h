#ifndef LATCHKEY_CMBEDTLS_SHIM_H
#define LATCHKEY_CMBEDTLS_SHIM_H
// Every mbedTLS header Latchkey uses; Swift sees them through this one module. It builds against
// mbedTLS 2.28 (Debian 12's system package, for library users there) and 3.6 LTS (Debian 13's, which
// the shipped binary links: device/fetch-mbedtls.sh). Where the two APIs differ, a `latchkey_`
// wrapper below takes the difference, so the Swift code has no version conditionals.
#include <mbedtls/version.h>
#if MBEDTLS_VERSION_MAJOR >= 3
#include <mbedtls/build_info.h>
#include <psa/crypto.h>
#include <mbedtls/psa_util.h>
#else
#include <mbedtls/config.h>
#endif
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
#include <mbedtls/oid.h>
#include <mbedtls/debug.h>
#include <mbedtls/constant_time.h>
#include <stdlib.h>
#include <string.h>

// An entropy context that Swift only ever holds as an untyped pointer. The struct (Debian's 2.28
// enables HAVEGE, whose state is kilobytes of fixed arrays) would otherwise get Swift value
// witnesses: 57 KB of the static binary for a type Swift never copies.
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
// ---- Library set-up -------------------------------------------------------------------------------

// 3.x: TLS 1.3, the key parser and the pair check use PSA, which must be initialised before any of
// them (psa_crypto_init is idempotent and thread-safe; Swift calls this once, see MbedTLSLibrary).
// 2.28 has nothing to set up.
static inline int latchkey_library_init(void) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return psa_crypto_init() == PSA_SUCCESS ? 0 : -1;
#else
    return 0;
#endif
}

// ---- Hashes, keys ---------------------------------------------------------------------------------

static inline int latchkey_sha256(const unsigned char *input, size_t length, unsigned char output[32]) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_sha256(input, length, output, 0);
#else
    return mbedtls_sha256_ret(input, length, output, 0);
#endif
}

// is384: 1 for SHA-384, 0 for SHA-512.
static inline int latchkey_sha512(const unsigned char *input, size_t length, unsigned char output[64], int is384) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_sha512(input, length, output, is384);
#else
    return mbedtls_sha512_ret(input, length, output, is384);
#endif
}

// 3.x makes the key-pair fields private; these reach them in either version.
static inline mbedtls_ecp_group *latchkey_ecp_grp(mbedtls_ecp_keypair *kp) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return &kp->MBEDTLS_PRIVATE(grp);
#else
    return &kp->grp;
#endif
}

static inline mbedtls_mpi *latchkey_ecp_d(mbedtls_ecp_keypair *kp) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return &kp->MBEDTLS_PRIVATE(d);
#else
    return &kp->d;
#endif
}

static inline mbedtls_ecp_point *latchkey_ecp_Q(mbedtls_ecp_keypair *kp) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return &kp->MBEDTLS_PRIVATE(Q);
#else
    return &kp->Q;
#endif
}

static inline size_t latchkey_rsa_bitlen(const mbedtls_rsa_context *ctx) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_rsa_get_bitlen(ctx);
#else
    return mbedtls_mpi_bitlen(&ctx->N);
#endif
}

// A fresh context with PKCS#1 v1.5 padding (each signing call sets its own).
static inline void latchkey_rsa_init(mbedtls_rsa_context *ctx) {
#if MBEDTLS_VERSION_MAJOR >= 3
    mbedtls_rsa_init(ctx);
#else
    mbedtls_rsa_init(ctx, MBEDTLS_RSA_PKCS_V15, 0);
#endif
}

static inline int latchkey_rsa_set_padding(mbedtls_rsa_context *ctx, int padding, mbedtls_md_type_t md) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_rsa_set_padding(ctx, padding, md);
#else
    mbedtls_rsa_set_padding(ctx, padding, (int)md);
    return 0;
#endif
}

static inline int latchkey_rsa_pkcs1_v15_sign(mbedtls_rsa_context *ctx, int (*f_rng)(void *, unsigned char *, size_t),
                                              void *p_rng, mbedtls_md_type_t md, unsigned int hashlen,
                                              const unsigned char *hash, unsigned char *sig) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_rsa_rsassa_pkcs1_v15_sign(ctx, f_rng, p_rng, md, hashlen, hash, sig);
#else
    return mbedtls_rsa_rsassa_pkcs1_v15_sign(ctx, f_rng, p_rng, MBEDTLS_RSA_PRIVATE, md, hashlen, hash, sig);
#endif
}

static inline int latchkey_rsa_pkcs1_v15_verify(mbedtls_rsa_context *ctx, mbedtls_md_type_t md, unsigned int hashlen,
                                                const unsigned char *hash, const unsigned char *sig) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_rsa_rsassa_pkcs1_v15_verify(ctx, md, hashlen, hash, sig);
#else
    return mbedtls_rsa_rsassa_pkcs1_v15_verify(ctx, NULL, NULL, MBEDTLS_RSA_PUBLIC, md, hashlen, hash, sig);
#endif
}

static inline int latchkey_rsa_pss_verify(mbedtls_rsa_context *ctx, mbedtls_md_type_t md, unsigned int hashlen,
                                          const unsigned char *hash, mbedtls_md_type_t mgf1, int saltlen,
                                          const unsigned char *sig) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_rsa_rsassa_pss_verify_ext(ctx, md, hashlen, hash, mgf1, saltlen, sig);
#else
    return mbedtls_rsa_rsassa_pss_verify_ext(ctx, NULL, NULL, MBEDTLS_RSA_PUBLIC, md, hashlen, hash, mgf1, saltlen, sig);
#endif
}

// 3.x wants an RNG to parse a key and check a pair (EC blinding); PSA's is the one it documents.
static inline int latchkey_pk_parse_key(mbedtls_pk_context *pk, const unsigned char *key, size_t keylen) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_pk_parse_key(pk, key, keylen, NULL, 0, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
#else
    return mbedtls_pk_parse_key(pk, key, keylen, NULL, 0);
#endif
}

static inline int latchkey_pk_check_pair(const mbedtls_pk_context *pub, const mbedtls_pk_context *prv) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_pk_check_pair(pub, prv, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
#else
    return mbedtls_pk_check_pair(pub, prv);
#endif
}

static inline int latchkey_pbkdf2_hmac(mbedtls_md_type_t md, const unsigned char *password, size_t plen,
                                       const unsigned char *salt, size_t slen, unsigned int iterations,
                                       uint32_t key_length, unsigned char *output) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_pkcs5_pbkdf2_hmac_ext(md, password, plen, salt, slen, iterations, key_length, output);
#else
    mbedtls_md_context_t ctx;
    mbedtls_md_init(&ctx);
    int rc = mbedtls_md_setup(&ctx, mbedtls_md_info_from_type(md), 1);
    if (rc == 0) rc = mbedtls_pkcs5_pbkdf2_hmac(&ctx, password, plen, salt, slen, iterations, key_length, output);
    mbedtls_md_free(&ctx);
    return rc;
#endif
}

// ---- TLS ------------------------------------------------------------------------------------------

#if MBEDTLS_VERSION_MAJOR >= 3
#define LATCHKEY_ERR_SSL_BAD_PROTOCOL_VERSION MBEDTLS_ERR_SSL_BAD_PROTOCOL_VERSION
#else
#define LATCHKEY_ERR_SSL_BAD_PROTOCOL_VERSION MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION
#endif
#ifndef MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET
#define MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET -0x7B00
#endif

// The highest TLS version this build offers, as 0x0303 (1.2) or 0x0304 (1.3).
static inline int latchkey_tls_max_version(void) {
#if MBEDTLS_VERSION_MAJOR >= 3 && defined(MBEDTLS_SSL_PROTO_TLS1_3)
    return 0x0304;
#else
    return 0x0303;
#endif
}

// TLS 1.2 minimum (Debian's 2.28 also enables 1.0/1.1), up to 1.3 where the library has it; no
// session tickets: every connection carries one request and is never resumed. (A TLS 1.3 client
// in 3.6 ignores tickets unless told otherwise; 0-RTT is not compiled in.)
static inline void latchkey_ssl_conf_versions(mbedtls_ssl_config *conf) {
#if MBEDTLS_VERSION_MAJOR >= 3
    mbedtls_ssl_conf_min_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_max_tls_version(conf, latchkey_tls_max_version() == 0x0304 ? MBEDTLS_SSL_VERSION_TLS1_3
                                                                                : MBEDTLS_SSL_VERSION_TLS1_2);
#else
    mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
#endif
#if defined(MBEDTLS_SSL_SESSION_TICKETS)
    mbedtls_ssl_conf_session_tickets(conf, MBEDTLS_SSL_SESSION_TICKETS_DISABLED);
#endif
#if MBEDTLS_VERSION_MAJOR >= 3
    // One signature_algorithms list serves both versions, and 3.6 built without MBEDTLS_USE_PSA_CRYPTO
    // (Debian's) offers RSA-PSS for TLS 1.3 but refuses it in a TLS 1.2 ServerKeyExchange (illegal
    // parameter). A server picks in the client's order unless told to prefer its own (OpenSSL's
    // default), so PKCS#1 v1.5 comes before PSS: a 1.2 server signs with it, while a 1.3 server, for
    // which PKCS#1 v1.5 handshake signatures are forbidden (RFC 8446 §4.2.3), still takes PSS.
    static const uint16_t signature_algorithms[] = {
        MBEDTLS_TLS1_3_SIG_ECDSA_SECP256R1_SHA256, MBEDTLS_TLS1_3_SIG_ECDSA_SECP384R1_SHA384,
        MBEDTLS_TLS1_3_SIG_ECDSA_SECP521R1_SHA512,
        MBEDTLS_TLS1_3_SIG_RSA_PKCS1_SHA256, MBEDTLS_TLS1_3_SIG_RSA_PKCS1_SHA384, MBEDTLS_TLS1_3_SIG_RSA_PKCS1_SHA512,
        MBEDTLS_TLS1_3_SIG_RSA_PSS_RSAE_SHA256, MBEDTLS_TLS1_3_SIG_RSA_PSS_RSAE_SHA384,
        MBEDTLS_TLS1_3_SIG_RSA_PSS_RSAE_SHA512,
        MBEDTLS_TLS1_3_SIG_NONE,
    };
    mbedtls_ssl_conf_sig_algs(conf, signature_algorithms);
#endif
}

// The last record's message bytes (an alert: level, description), or NULL.
static inline const unsigned char *latchkey_ssl_in_msg(const mbedtls_ssl_context *ssl) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return ssl->MBEDTLS_PRIVATE(in_msg);
#else
    return ssl->in_msg;
#endif
}

// One handshake step. Sets *certificate_requested once the server has sent a CertificateRequest
// where the library shows it: 2.28 keeps it in the context; a 3.x TLS 1.3 handshake enters the
// client-certificate state only after one (3.x's TLS 1.2 state machine enters it always, so for
// 1.2 the caller watches for the plaintext Certificate message it sends).
static inline int latchkey_ssl_handshake_step(mbedtls_ssl_context *ssl, int *certificate_requested) {
#if MBEDTLS_VERSION_MAJOR >= 3
    if (ssl->MBEDTLS_PRIVATE(state) == MBEDTLS_SSL_CLIENT_CERTIFICATE &&
        mbedtls_ssl_get_version_number(ssl) == MBEDTLS_SSL_VERSION_TLS1_3) {
        *certificate_requested = 1;
    }
    return mbedtls_ssl_handshake_step(ssl);
#else
    int rc = mbedtls_ssl_handshake_step(ssl);
    if (ssl->client_auth != 0) *certificate_requested = 1;
    return rc;
#endif
}

static inline int latchkey_ssl_handshake_over(const mbedtls_ssl_context *ssl) {
#if MBEDTLS_VERSION_MAJOR >= 3
    return mbedtls_ssl_is_handshake_over((mbedtls_ssl_context *)ssl);
#else
    return ssl->state == MBEDTLS_SSL_HANDSHAKE_OVER;
#endif
}

// An IP-address host: only an iPAddress SAN can name it, never a DNS name or the CN (RFC 9525).
// mbedTLS 3.6 matches an IP literal given to mbedtls_ssl_set_hostname against iPAddress SANs, but
// also accepts a dNSName or, without SANs, a CN spelling the address, and would send it as SNI.
// So for an IP host TLSSession sets no host name and this verify callback is the name check: the
// leaf is a name mismatch unless an iPAddress SAN holds exactly these bytes. 2.28 does not keep
// iPAddress SANs, so there an IP-address host never matches.
typedef struct {
    unsigned char address[16];
    size_t length;  // 4 or 16; 0 for a DNS host name (the callback then does nothing)
} latchkey_ip_host;

// 1 where an IP-address host can match at all (3.x keeps iPAddress SANs).
static inline int latchkey_ip_san_supported(void) {
    return MBEDTLS_VERSION_MAJOR >= 3;
}

static inline int latchkey_verify_ip_san(void *context, mbedtls_x509_crt *crt, int depth, uint32_t *flags) {
    const latchkey_ip_host *host = context;
    if (depth != 0 || host == NULL || host->length == 0) return 0;
    int match = 0;
#if MBEDTLS_VERSION_MAJOR >= 3
    if (mbedtls_x509_crt_has_ext_type(crt, MBEDTLS_X509_EXT_SUBJECT_ALT_NAME)) {
        for (const mbedtls_x509_sequence *san = &crt->subject_alt_names; san != NULL; san = san->next) {
            if (san->buf.p != NULL && san->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) &&
                san->buf.len == host->length && memcmp(san->buf.p, host->address, host->length) == 0) {
                match = 1;
                break;
            }
        }
    }
#else
    (void)crt;
#endif
    if (!match) *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
    return 0;
}
#endif

/*
 * PBKDF2-HMAC-SHA512 with a 64-byte output (a BIP-39 seed), for many inputs at once.
 *
 * node:crypto's pbkdf2 runs each HMAC through OpenSSL 3's EVP layer, which copies and frees hash
 * contexts on every one of the 2,048 rounds: it reaches ~60 % of what the SHA-512 compression itself
 * allows. This addon keeps the ipad/opad states and runs the bare compression:
 *  - one input at a time with OpenSSL's own SHA512_Transform (the assembly node:crypto uses), ~1.45x;
 *  - several inputs at once, one per 64-bit lane of AVX2 (4 lanes) or AVX-512 (8 lanes) registers,
 *    chosen at load time from what the CPU supports; several times the throughput of one at a time.
 * Outputs are byte-identical to node:crypto's pbkdf2Sync(password, salt, iterations, 64, "sha512")
 * (crypto/pbkdf2.test.ts checks every path against it). The service trusts none of this unchecked: on
 * load, src/crypto/pbkdf2.ts runs BIP-39's reference vectors and a random sample against node:crypto
 * through the paths it will use and falls back to node:crypto on any mismatch; test/native-sanitizers.test.ts
 * runs the core (everything above the N-API glue; -DLK_CORE_ONLY) under ASan and UBSan. Key material is
 * wiped with wipe() (explicit_bzero), which the compiler may not drop, and every N-API status is checked.
 *
 * The OpenSSL functions come from the node binary itself, which exports them; nothing else is linked.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#if defined(__GLIBC__) || defined(__linux__)
#define _DEFAULT_SOURCE 1 /* explicit_bzero (glibc >= 2.25) */
#endif
#ifndef LK_CORE_ONLY
#include <node_api.h>
#endif
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LK_X86 1
#endif

static const uint64_t SHA512_K[80] = {
  0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
  0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
  0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
  0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
  0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
  0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
  0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
  0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
  0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
  0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
  0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
  0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
  0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
  0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
  0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
  0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
  0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
  0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
  0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
  0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

/*
 * Wipes key material in a way the compiler may not remove as a dead store (a plain memset before free or
 * before a buffer goes out of scope may be dropped): glibc's explicit_bzero, else a loop through a volatile
 * pointer.
 */
static void wipe(void *p, size_t n) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
  explicit_bzero(p, n);
#else
  volatile unsigned char *v = (volatile unsigned char *)p;
  while (n--) *v++ = 0;
#endif
}

/* One input's state: the HMAC key's ipad and opad states, and U (U1 going in, T coming out). */
struct lane_words {
  uint64_t ipad[8];
  uint64_t opad[8];
  uint64_t u[8];
};

static void store_be64(unsigned char *out, uint64_t v) {
  for (int i = 7; i >= 0; i--) {
    out[i] = (unsigned char)(v & 0xff);
    v >>= 8;
  }
}

static uint64_t load_be64(const unsigned char *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | in[i];
  return v;
}

/* The HMAC key's pad states and U1 = HMAC(password, salt ‖ INT(1)). */
static void prepare(struct lane_words *w, const unsigned char *password, size_t password_len,
                    const unsigned char *salt, size_t salt_len) {
  unsigned char key[SHA512_CBLOCK] = {0};
  unsigned char pad[SHA512_CBLOCK];
  unsigned char digest[SHA512_DIGEST_LENGTH];
  static const unsigned char block_index[4] = {0, 0, 0, 1};
  SHA512_CTX ictx, octx, c;
  if (password_len > SHA512_CBLOCK) SHA512(password, password_len, key);
  else if (password_len > 0) memcpy(key, password, password_len);
  for (int i = 0; i < SHA512_CBLOCK; i++) pad[i] = key[i] ^ 0x36;
  SHA512_Init(&ictx);
  SHA512_Update(&ictx, pad, SHA512_CBLOCK);
  for (int i = 0; i < SHA512_CBLOCK; i++) pad[i] = key[i] ^ 0x5c;
  SHA512_Init(&octx);
  SHA512_Update(&octx, pad, SHA512_CBLOCK);
  c = ictx;
  SHA512_Update(&c, salt, salt_len);
  SHA512_Update(&c, block_index, 4);
  SHA512_Final(digest, &c);
  c = octx;
  SHA512_Update(&c, digest, SHA512_DIGEST_LENGTH);
  SHA512_Final(digest, &c);
  for (int i = 0; i < 8; i++) {
    w->ipad[i] = ictx.h[i];
    w->opad[i] = octx.h[i];
    w->u[i] = load_be64(digest + 8 * i);
  }
  wipe(key, sizeof key);
  wipe(pad, sizeof pad);
  wipe(digest, sizeof digest);
  wipe(&ictx, sizeof ictx);
  wipe(&octx, sizeof octx);
  wipe(&c, sizeof c);
}

/* Iterations 2..c for one input, with OpenSSL's SHA512_Transform (its assembly for this CPU). */
static void run_scalar(struct lane_words *w, uint32_t iterations) {
  unsigned char block[SHA512_CBLOCK] = {0};
  uint64_t t[8];
  SHA512_CTX c;
  memset(&c, 0, sizeof c);
  block[64] = 0x80;
  store_be64(block + 120, (SHA512_CBLOCK + SHA512_DIGEST_LENGTH) * 8);
  memcpy(t, w->u, sizeof t);
  for (uint32_t k = 1; k < iterations; k++) {
    for (int i = 0; i < 8; i++) store_be64(block + 8 * i, w->u[i]);
    memcpy(c.h, w->ipad, sizeof w->ipad);
    SHA512_Transform(&c, block);
    for (int i = 0; i < 8; i++) store_be64(block + 8 * i, c.h[i]);
    memcpy(c.h, w->opad, sizeof w->opad);
    SHA512_Transform(&c, block);
    for (int i = 0; i < 8; i++) {
      w->u[i] = c.h[i];
      t[i] ^= c.h[i];
    }
  }
  memcpy(w->u, t, sizeof t);
  wipe(block, sizeof block);
  wipe(t, sizeof t);
  wipe(&c, sizeof c);
}

#ifdef LK_X86
/* AVX2: 4 lanes; no 64-bit rotate instruction, so a rotate is two shifts and an or. */
#define LANES 4
#define V __m256i
#define ADD _mm256_add_epi64
#define XOR _mm256_xor_si256
#define AND _mm256_and_si256
#define ANDN _mm256_andnot_si256
#define SET1(x) _mm256_set1_epi64x((long long)(x))
#define ROR(x, n) _mm256_or_si256(_mm256_srli_epi64(x, n), _mm256_slli_epi64(x, 64 - (n)))
#define SHR(x, n) _mm256_srli_epi64(x, n)
#define LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREU(p, x) _mm256_storeu_si256((__m256i *)(p), x)
#define ATTR __attribute__((target("avx2")))
#define FN_COMPRESS compress_avx2
#define FN_RUN run_avx2
#include "pbkdf2_lanes.h"
#undef LANES
#undef V
#undef ADD
#undef XOR
#undef AND
#undef ANDN
#undef SET1
#undef ROR
#undef SHR
#undef LOADU
#undef STOREU
#undef ATTR
#undef FN_COMPRESS
#undef FN_RUN

/* AVX-512: 8 lanes and a real 64-bit rotate. */
#define LANES 8
#define V __m512i
#define ADD _mm512_add_epi64
#define XOR _mm512_xor_si512
#define AND _mm512_and_si512
#define ANDN _mm512_andnot_si512
#define SET1(x) _mm512_set1_epi64((long long)(x))
#define ROR(x, n) _mm512_ror_epi64(x, n)
#define SHR(x, n) _mm512_srli_epi64(x, n)
#define LOADU(p) _mm512_loadu_si512((const void *)(p))
#define STOREU(p, x) _mm512_storeu_si512((void *)(p), x)
#define ATTR __attribute__((target("avx512f")))
#define FN_COMPRESS compress_avx512
#define FN_RUN run_avx512
#include "pbkdf2_lanes.h"
#endif

/* The widest lane count this CPU runs: 8 (AVX-512), 4 (AVX2) or 1. */
static int cpu_lanes(void) {
#ifdef LK_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 8;
  if (__builtin_cpu_supports("avx2")) return 4;
#endif
  return 1;
}

/*
 * Runs every input. Groups of inputs share one vector run; a vector run costs the same for any number of
 * occupied lanes, so a group smaller than a few lanes goes one at a time instead (an 8-lane run costs
 * about 1.6 single runs, a 4-lane run about 2.3).
 */
static void run_all(struct lane_words *w, size_t n, uint32_t iterations, int lanes) {
  size_t i = 0;
#ifdef LK_X86
  size_t min_group = lanes == 8 ? 2 : 3;
  while (lanes > 1 && n - i >= min_group) {
    struct lane_words *group[8];
    size_t take = n - i < (size_t)lanes ? n - i : (size_t)lanes;
    for (int l = 0; l < lanes; l++) group[l] = &w[i + ((size_t)l < take ? (size_t)l : 0)];
    /* Unused lanes repeat the first input; their results are thrown away by running on a copy. */
    struct lane_words spare[8];
    for (int l = (int)take; l < lanes; l++) {
      spare[l] = w[i];
      group[l] = &spare[l];
    }
    if (lanes == 8) run_avx512(group, iterations);
    else run_avx2(group, iterations);
    wipe(spare, sizeof spare);
    i += take;
  }
#else
  (void)lanes;
#endif
  for (; i < n; i++) run_scalar(&w[i], iterations);
}

#ifndef LK_CORE_ONLY
/* Everything below is the N-API glue; the sanitizer test (test/native/) compiles the core above alone. */
static int best_lanes = 1;

/* Every N-API call's status is checked: on failure the call throws (unless an exception is already
 * pending) and returns NULL, after the `fail` label frees and wipes what was allocated. */
static void throw_status(napi_env env, napi_status status, const char *what) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  const napi_extended_error_info *info = NULL;
  const char *detail = napi_get_last_error_info(env, &info) == napi_ok && info && info->error_message
                           ? info->error_message
                           : "N-API call failed";
  char msg[256];
  snprintf(msg, sizeof msg, "pbkdf2_sha512: %s: %s (status %d)", what, detail, (int)status);
  napi_throw_error(env, NULL, msg);
}

#define NAPI_OK(call)                                \
  do {                                               \
    napi_status status_ = (call);                    \
    if (status_ != napi_ok) {                        \
      throw_status(env, status_, #call);             \
      goto fail;                                     \
    }                                                \
  } while (0)

#define THROW(msg)                                   \
  do {                                               \
    napi_throw_type_error(env, NULL, msg);           \
    goto fail;                                       \
  } while (0)

/* The widest run this CPU has that fits `max` lanes (a number; anything else leaves the widest): 8, 4 or 1.
 * Returns 0 (an exception pending) where N-API fails. */
static int capped_lanes(napi_env env, napi_value max_value) {
  int lanes = best_lanes;
  napi_valuetype t;
  int32_t max;
  NAPI_OK(napi_typeof(env, max_value, &t));
  if (t != napi_number) return lanes;
  NAPI_OK(napi_get_value_int32(env, max_value, &max));
  while (lanes > 1 && lanes > max) lanes /= 2;
  return lanes == 2 ? 1 : lanes;
fail:
  return 0;
}

static int bytes_of(napi_env env, napi_value v, unsigned char **data, size_t *len) {
  bool is;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return 0;
  napi_typedarray_type type;
  napi_value ab;
  size_t offset;
  void *raw;
  if (napi_get_typedarray_info(env, v, &type, len, &raw, &ab, &offset) != napi_ok) return 0;
  if (type != napi_uint8_array) return 0;
  *data = (unsigned char *)raw;
  return 1;
}

/* pbkdf2Sha512(passwords: Uint8Array[], salts: Uint8Array[], iterations, maxLanes?): Buffer[] (64 bytes each) */
static napi_value pbkdf2_sha512(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  struct lane_words *w = NULL;
  uint32_t n = 0, n_salts;
  napi_value out = NULL;
  bool is_array;
  int64_t iterations;
  int lanes;
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) THROW("pbkdf2Sha512(passwords, salts, iterations[, maxLanes])");
  NAPI_OK(napi_is_array(env, argv[0], &is_array));
  if (!is_array) THROW("passwords must be an array");
  NAPI_OK(napi_is_array(env, argv[1], &is_array));
  if (!is_array) THROW("salts must be an array");
  NAPI_OK(napi_get_array_length(env, argv[0], &n));
  NAPI_OK(napi_get_array_length(env, argv[1], &n_salts));
  if (n != n_salts) THROW("passwords and salts must have the same length");
  if (napi_get_value_int64(env, argv[2], &iterations) != napi_ok || iterations < 1 || iterations > 0xffffffffLL)
    THROW("iterations must be a positive integer");
  lanes = argc > 3 ? capped_lanes(env, argv[3]) : best_lanes;
  if (lanes == 0) goto fail;
  w = n ? calloc(n, sizeof *w) : NULL;
  if (n && !w) {
    napi_throw_error(env, NULL, "out of memory");
    goto fail;
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value p, s;
    unsigned char *pd, *sd;
    size_t pl, sl;
    NAPI_OK(napi_get_element(env, argv[0], i, &p));
    NAPI_OK(napi_get_element(env, argv[1], i, &s));
    if (!bytes_of(env, p, &pd, &pl) || !bytes_of(env, s, &sd, &sl)) THROW("passwords and salts must be Uint8Arrays");
    prepare(&w[i], pd, pl, sd, sl);
  }
  run_all(w, n, (uint32_t)iterations, lanes);
  napi_value result;
  NAPI_OK(napi_create_array_with_length(env, n, &result));
  for (uint32_t i = 0; i < n; i++) {
    void *data;
    napi_value buf;
    NAPI_OK(napi_create_buffer(env, SHA512_DIGEST_LENGTH, &data, &buf));
    for (int k = 0; k < 8; k++) store_be64((unsigned char *)data + 8 * k, w[i].u[k]);
    NAPI_OK(napi_set_element(env, result, i, buf));
  }
  out = result;
fail:
  if (w) {
    wipe(w, (size_t)n * sizeof *w);
    free(w);
  }
  return out;
}

/* lanes(maxLanes?): how many inputs one run advances on this CPU (8, 4 or 1), at most maxLanes. */
static napi_value lanes_of(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value v;
  int lanes;
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  lanes = argc > 0 ? capped_lanes(env, argv[0]) : best_lanes;
  if (lanes == 0) goto fail;
  NAPI_OK(napi_create_int32(env, lanes, &v));
  return v;
fail:
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  best_lanes = cpu_lanes();
  NAPI_OK(napi_create_function(env, "pbkdf2Sha512", NAPI_AUTO_LENGTH, pbkdf2_sha512, NULL, &fn));
  NAPI_OK(napi_set_named_property(env, exports, "pbkdf2Sha512", fn));
  NAPI_OK(napi_create_function(env, "lanes", NAPI_AUTO_LENGTH, lanes_of, NULL, &fn));
  NAPI_OK(napi_set_named_property(env, exports, "lanes", fn));
  return exports;
fail:
  return NULL;
}
#endif /* LK_CORE_ONLY */

/*
 * A standalone known-answer harness for the PBKDF2 addon's core (native/pbkdf2_sha512.c without its N-API
 * glue, LK_CORE_ONLY), built with -fsanitize=address,undefined by test/native-sanitizers.test.ts.
 *
 * stdin: one case a line, "password-hex salt-hex iterations expected-seed-hex" ("-" for an empty hex
 * string); consecutive cases with the same iteration count form a group. Every group is run through every
 * path this CPU has (1 lane: OpenSSL's SHA512_Transform; 4: AVX2; 8: AVX-512) in batches of 1, 2, 3,
 * lanes - 1, lanes, lanes + 1 and the whole group, so full batches, partial batches and remainders all run.
 * Prints "ok <checks> checks (lanes …)" and exits 0, or names the first mismatch and exits 1.
 */
#define LK_CORE_ONLY 1
#include "../../native/pbkdf2_sha512.c"

#include <stdio.h>

struct kat {
  unsigned char *password, *salt;
  size_t password_len, salt_len;
  uint32_t iterations;
  unsigned char seed[64];
};

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Exactly-sized heap copy of a hex string, so an overread is an AddressSanitizer report. */
static int unhex(const char *hex, unsigned char **out, size_t *len) {
  size_t n = strcmp(hex, "-") == 0 ? 0 : strlen(hex);
  if (n % 2) return 0;
  *len = n / 2;
  *out = malloc(*len ? *len : 1);
  if (!*out) return 0;
  for (size_t i = 0; i < *len; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return 0;
    (*out)[i] = (unsigned char)(hi * 16 + lo);
  }
  return 1;
}

static long checks = 0;

static int run_batch(struct kat *k, size_t n, int lanes) {
  struct lane_words *w = malloc(n * sizeof *w);
  if (!w) return 0;
  for (size_t i = 0; i < n; i++) prepare(&w[i], k[i].password, k[i].password_len, k[i].salt, k[i].salt_len);
  run_all(w, n, k[0].iterations, lanes);
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    unsigned char seed[64];
    for (int j = 0; j < 8; j++) store_be64(seed + 8 * j, w[i].u[j]);
    if (memcmp(seed, k[i].seed, 64) != 0) {
      fprintf(stderr, "mismatch: %d lanes, batch of %zu, seed %zu, %u iterations\n", lanes, n, i + 1,
              k[i].iterations);
      ok = 0;
    }
    checks++;
  }
  wipe(w, n * sizeof *w);
  free(w);
  return ok;
}

int main(void) {
  static char line[4096];
  struct kat *cases = NULL;
  size_t n = 0, cap = 0;
  while (fgets(line, sizeof line, stdin)) {
    char p[1024], s[1024], e[256];
    unsigned iterations;
    if (sscanf(line, "%1023s %1023s %u %255s", p, s, &iterations, e) != 4) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      struct kat *grown = realloc(cases, cap * sizeof *cases);
      if (!grown) return 2;
      cases = grown;
    }
    struct kat *k = &cases[n];
    unsigned char *seed;
    size_t seed_len;
    if (!unhex(p, &k->password, &k->password_len) || !unhex(s, &k->salt, &k->salt_len) ||
        !unhex(e, &seed, &seed_len) || seed_len != 64) {
      fprintf(stderr, "bad input line %zu\n", n + 1);
      return 2;
    }
    memcpy(k->seed, seed, 64);
    free(seed);
    k->iterations = iterations;
    n++;
  }
  if (n == 0) {
    fprintf(stderr, "no cases on stdin\n");
    return 2;
  }
  int best = cpu_lanes();
  int failed = 0;
  for (int lanes = 1; lanes <= best && !failed; lanes *= (lanes == 1 ? 4 : 2)) {
    for (size_t start = 0; start < n && !failed;) {
      size_t end = start;
      while (end < n && cases[end].iterations == cases[start].iterations) end++;
      size_t group = end - start;
      size_t sizes[] = {1, 2, 3, (size_t)lanes - 1, (size_t)lanes, (size_t)lanes + 1, group};
      for (size_t z = 0; z < sizeof sizes / sizeof *sizes && !failed; z++) {
        size_t size = sizes[z];
        if (size == 0 || size > group) continue;
        for (size_t at = start; at + size <= end && !failed; at += size)
          if (!run_batch(&cases[at], size, lanes)) failed = 1;
      }
      start = end;
    }
  }
  for (size_t i = 0; i < n; i++) {
    free(cases[i].password);
    free(cases[i].salt);
  }
  free(cases);
  if (failed) return 1;
  printf("ok %ld checks (lanes up to %d)\n", checks, best);
  return 0;
}

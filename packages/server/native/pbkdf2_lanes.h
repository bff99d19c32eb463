/*
 * One PBKDF2-HMAC-SHA512 run over LANES independent inputs at once: each 64-bit word of SHA-512 sits in
 * one lane of a vector register, so one compression advances every lane. Included once per instruction
 * set by pbkdf2_sha512.c, with V (the vector type), its operations and FN_COMPRESS / FN_RUN defined.
 *
 * PBKDF2 with a 64-byte output is one block: T = U1 ^ U2 ^ ... ^ Uc, Ui = HMAC(P, U(i-1)). Each HMAC of a
 * 64-byte message is exactly two compressions from precomputed ipad/opad states, and the message block is
 * always U (8 words) followed by the same padding, so the words never leave the registers.
 */

/* h = h + compress(h, m[0..7] ‖ 0x80 ‖ 0… ‖ length 1536 bits): one compression of a 64-byte message
 * that follows a 128-byte (ipad or opad) block. */
ATTR static void FN_COMPRESS(V h[8], const V m[8]) {
  V w[16];
  for (int i = 0; i < 8; i++) w[i] = m[i];
  w[8] = SET1(0x8000000000000000ULL);
  for (int i = 9; i < 15; i++) w[i] = SET1(0);
  w[15] = SET1((128 + 64) * 8);
  V a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int t = 0; t < 80; t++) {
    V wt;
    if (t < 16) {
      wt = w[t];
    } else {
      V w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      V s0 = XOR(XOR(ROR(w15, 1), ROR(w15, 8)), SHR(w15, 7));
      V s1 = XOR(XOR(ROR(w2, 19), ROR(w2, 61)), SHR(w2, 6));
      wt = ADD(ADD(w[t & 15], s0), ADD(w[(t - 7) & 15], s1));
      w[t & 15] = wt;
    }
    V S1 = XOR(XOR(ROR(e, 14), ROR(e, 18)), ROR(e, 41));
    V ch = XOR(AND(e, f), ANDN(e, g));
    V t1 = ADD(ADD(ADD(hh, S1), ADD(ch, SET1(SHA512_K[t]))), wt);
    V S0 = XOR(XOR(ROR(a, 28), ROR(a, 34)), ROR(a, 39));
    V maj = XOR(XOR(AND(a, b), AND(a, c)), AND(b, c));
    V t2 = ADD(S0, maj);
    hh = g; g = f; f = e; e = ADD(d, t1); d = c; c = b; b = a; a = ADD(t1, t2);
  }
  h[0] = ADD(h[0], a); h[1] = ADD(h[1], b); h[2] = ADD(h[2], c); h[3] = ADD(h[3], d);
  h[4] = ADD(h[4], e); h[5] = ADD(h[5], f); h[6] = ADD(h[6], g); h[7] = ADD(h[7], hh);
}

/* Iterations 2..c for LANES inputs; `lanes` holds each input's ipad/opad states and U1, word-major. */
ATTR static void FN_RUN(struct lane_words *in[], uint32_t iterations) {
  uint64_t buf[8 * LANES];
  V ih[8], oh[8], u[8], t[8];
#define GATHER(dst, field)                                                     \
  for (int i = 0; i < 8; i++) {                                                \
    for (int l = 0; l < LANES; l++) buf[i * LANES + l] = in[l]->field[i];     \
    dst[i] = LOADU(buf + i * LANES);                                           \
  }
  GATHER(ih, ipad)
  GATHER(oh, opad)
  GATHER(u, u)
#undef GATHER
  for (int i = 0; i < 8; i++) t[i] = u[i];
  for (uint32_t k = 1; k < iterations; k++) {
    V s[8];
    for (int i = 0; i < 8; i++) s[i] = ih[i];
    FN_COMPRESS(s, u);
    for (int i = 0; i < 8; i++) u[i] = oh[i];
    FN_COMPRESS(u, s);
    for (int i = 0; i < 8; i++) t[i] = XOR(t[i], u[i]);
  }
  for (int i = 0; i < 8; i++) {
    STOREU(buf + i * LANES, t[i]);
    for (int l = 0; l < LANES; l++) in[l]->u[i] = buf[i * LANES + l];
  }
  wipe(buf, sizeof buf);
  wipe(ih, sizeof ih);
  wipe(oh, sizeof oh);
  wipe(u, sizeof u);
  wipe(t, sizeof t);
}

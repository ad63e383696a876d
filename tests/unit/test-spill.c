/*
 * tests/unit/test-spill.c -- the MAC of spill records (vm/persist/spill.h)
 *
 * Each record of a spill file carries a SipHash-2-4 of its frame and
 * payload under the state's random key.  Checked here: vl_spill_mac is
 * SipHash-2-4 (the reference vectors of Aumasson and Bernstein: key
 * 00..0f, messages 00..0e of length 0 and 15); splitting the message
 * between head and payload at any multiple of 8 changes nothing; one
 * bit changed anywhere, the length, or the key changes the MAC.
 */
#include "config.h"

#include <string.h>
#include "tests/unit/check.h"
#include "vm/persist/spill.h"

int main(void)
{
    uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    unsigned char m[64];
    for (int i = 0; i < 64; i++)
        m[i] = (unsigned char)i;
    CHECK(vl_spill_mac(key, NULL, 0, m, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(vl_spill_mac(key, NULL, 0, m, 15) == 0xa129ca6149be45e5ull);
    for (size_t n = 0; n <= 64; n++) {
        uint64_t whole = vl_spill_mac(key, NULL, 0, m, n);
        for (size_t h = 8; h <= n; h += 8)
            CHECK(vl_spill_mac(key, m, h, m + h, n - h) == whole);
        if (n > 0)
            CHECK(vl_spill_mac(key, NULL, 0, m, n - 1) != whole);
        for (size_t i = 0; i < n; i++) {
            m[i] ^= 0x10;
            CHECK(vl_spill_mac(key, NULL, 0, m, n) != whole);
            m[i] ^= 0x10;
        }
        uint64_t other[2] = {key[0] ^ 1, key[1]};
        CHECK(vl_spill_mac(other, NULL, 0, m, n) != whole);
    }
    return CHECK_DONE();
}

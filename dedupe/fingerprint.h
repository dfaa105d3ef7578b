/* Fingerprints of 4 KiB blocks: SHA-1 for dedupe (through OpenSSL EVP, so
 * SHA-NI is used where the CPU has it), XXH3-64 as the stored checksum, and
 * the all-zero test (zero blocks become holes and are never hashed).
 */
#ifndef ARRAYSIM_DEDUPE_FINGERPRINT_H
#define ARRAYSIM_DEDUPE_FINGERPRINT_H

#include <stdbool.h>
#include <stdint.h>

#define FINGERPRINT_SHA1_LEN 20

struct fingerprint {
	uint8_t sha1[FINGERPRINT_SHA1_LEN];
	uint64_t xxh3;
	bool zero; /* all 4096 bytes are 0; sha1/xxh3 are then unset */
};

/* Fingerprint one 4096-byte block. 0, or -ENOMEM if OpenSSL fails. */
int fingerprint_block(const void *block, struct fingerprint *out);
/* XXH3-64 of one 4096-byte block: the checksum every stored block has. */
uint64_t fingerprint_xxh3(const void *block);
bool fingerprint_is_zero(const void *block);
/* Lower-case hex of @sha1 into @hex (41 bytes). */
void fingerprint_hex(const uint8_t sha1[FINGERPRINT_SHA1_LEN], char *hex);

#endif

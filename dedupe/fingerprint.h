/* Fingerprints of 4 KiB blocks: SHA-1 for dedupe (through OpenSSL EVP, so
 * SHA-NI is used where the CPU has it), XXH3-64 as the stored checksum, and
 * the all-zero test (zero blocks become holes and are never hashed).
 */
#ifndef ARRAYSIM_DEDUPE_FINGERPRINT_H
#define ARRAYSIM_DEDUPE_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
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
/* SHA-1 of @len bytes (any block size: dedupe-scan cuts 4K to 1M blocks
 * with the same code the filesystem uses). 0, or -ENOMEM. */
int fingerprint_sha1(const void *buf, size_t len,
		     uint8_t out[FINGERPRINT_SHA1_LEN]);
/* Are all @len bytes zero? @len is a multiple of 64 of at least 128. */
bool fingerprint_is_zero_len(const void *buf, size_t len);
/* Lower-case hex of @sha1 into @hex (41 bytes). */
void fingerprint_hex(const uint8_t sha1[FINGERPRINT_SHA1_LEN], char *hex);

#endif

/* The one PRNG of arraysim: splitmix64 (Steele, Lea, Flood 2014), a 64-bit
 * counter through a bijective mixer, with explicit state. Every seed gives
 * a full-period, well-mixed stream, and the same seed the same stream, so
 * a run is reproduced from its --seed. Inline: the timing model draws
 * several numbers per request. */
#ifndef ARRAYSIM_COMMON_PRNG_H
#define ARRAYSIM_COMMON_PRNG_H

#include <stdint.h>

/* The golden-ratio increment; also a good multiplier for hashing keys. */
#define PRNG_GOLDEN 0x9e3779b97f4a7c15ull

/* The next 64 random bits of the stream in *@state. */
static inline uint64_t prng_next(uint64_t *state)
{
	uint64_t z = (*state += PRNG_GOLDEN);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1), 53 bits. */
static inline double prng_unit(uint64_t *state)
{
	return (double)(prng_next(state) >> 11) * 0x1.0p-53;
}

#endif

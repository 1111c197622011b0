/* The unjournaled-modification detector: bitmap bits leaked into an earlier transaction's copy. */
#include "config.h"

#include <string.h>

#include "diag/diagnose.h"

/* Beyond this many free solution bits the answer is not unique enough to name. */
#define LEAK_MAX_NULLITY	12

static int bit_set(const unsigned char *b, unsigned i)
{
	return (b[i / 8] >> (i & 7)) & 1;
}

/* The first later copy with bit I set, or -1. */
static int first_later_with(const unsigned char *const *later, unsigned nlater, unsigned i)
{
	for (unsigned k = 0; k < nlater; k++)
		if (bit_set(later[k], i))
			return (int)k;
	return -1;
}

/*
 * Solve sum(a_c * v[c]) = s over GF(2) for a_c in {0,1}, n <= 64 unknowns,
 * 32 equations. Returns the lightest solution's unknowns as a bit mask in
 * *sol, and 1 if it is the only one of that weight; 0 when there is none
 * or it is not unique.
 */
static int solve_gf2(const uint32_t *v, unsigned n, uint32_t s, uint64_t *sol)
{
	uint32_t row[32], piv[32];	/* reduced rows, each with its own pivot bit */
	uint64_t comb[32];		/* which unknowns make each row */
	uint64_t null[64];
	unsigned npiv = 0, nnull = 0;
	uint64_t part = 0;

	for (unsigned c = 0; c < n; c++) {
		uint32_t x = v[c];
		uint64_t cm = 1ULL << c;
		for (unsigned p = 0; p < npiv; p++)
			if (x & piv[p]) {
				x ^= row[p];
				cm ^= comb[p];
			}
		if (x) {
			/* keep rows reduced: clear this pivot from the others */
			uint32_t pb = x & -x;
			for (unsigned p = 0; p < npiv; p++)
				if (row[p] & pb) {
					row[p] ^= x;
					comb[p] ^= cm;
				}
			row[npiv] = x;
			piv[npiv] = pb;
			comb[npiv++] = cm;
		} else {
			null[nnull++] = cm;
		}
	}
	for (unsigned p = 0; p < npiv; p++)
		if (s & piv[p]) {
			s ^= row[p];
			part ^= comb[p];
		}
	if (s || nnull > LEAK_MAX_NULLITY)
		return 0;

	/* Walk every solution: the lightest must be unique. */
	unsigned best = 65, nbest = 0;
	for (uint64_t m = 0; m < (1ULL << nnull); m++) {
		uint64_t x = part;
		for (unsigned k = 0; k < nnull; k++)
			if (m & (1ULL << k))
				x ^= null[k];
		unsigned w = (unsigned)__builtin_popcountll(x);
		if (!w)
			continue;
		if (w < best) {
			best = w;
			nbest = 1;
			*sol = x;
		} else if (w == best) {
			nbest++;
		}
	}
	return nbest == 1;
}

int diag_leak_find(const unsigned char *logged, const unsigned char *before,
		  const unsigned char *const *later, const uint32_t *later_seq, unsigned nlater,
		  unsigned blocksize, enum diag_crc_alg alg, uint64_t nbytes, uint64_t block_offset,
		  uint32_t syndrome, uint32_t mask, struct diag_leak *leak)
{
	uint32_t cand[JBD_LEAK_MAX_BITS], v[JBD_LEAK_MAX_BITS];
	int who[JBD_LEAK_MAX_BITS];
	unsigned n = 0;
	uint64_t sol;

	memset(leak, 0, sizeof(*leak));
	if (!nlater || !(syndrome & mask))
		return 0;
	for (unsigned i = 0; i < blocksize * 8; i++) {
		int k;

		if (!bit_set(logged, i) || (before && bit_set(before, i)))
			continue;
		k = first_later_with(later, nlater, i);
		if (k < 0)
			continue;
		if (n == JBD_LEAK_MAX_BITS)
			return 0;	/* too many to be a leak we can name */
		cand[n] = i;
		who[n] = k;
		v[n] = diag_crc_bit_syndrome(alg, nbytes, (block_offset + i / 8) * 8 + (i & 7)) & mask;
		n++;
	}
	if (!n || !solve_gf2(v, n, syndrome & mask, &sol))
		return 0;
	for (unsigned c = 0; c < n; c++)
		if (sol & (1ULL << c)) {
			leak->bit[leak->nbits] = cand[c];
			leak->set_by[leak->nbits] = later_seq[who[c]];
			leak->nbits++;
		}
	leak->later_versions = nlater;
	return 1;
}

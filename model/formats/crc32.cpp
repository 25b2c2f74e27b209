#include "formats/crc32.hpp"

#include <isa-l/crc.h>

#include <cstring>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#define RNICSIM_CRC32_FOLD 1
#else
#define RNICSIM_CRC32_FOLD 0
#endif

namespace rnicsim::packet {
namespace detail {

std::uint32_t crc32_isal(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  // ISA-L's gzip variant has zlib's conventions (inversion on entry and exit),
  // so results chain like zlib's.
  return crc32_gzip_refl(crc, data, length);
}

// Without the fold: the masked head is copied, then ISA-L continues in place.
std::uint32_t crc32_isal_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc) {
  std::uint8_t head[kCrc32MaskBytes];
  for (std::size_t i = 0; i < kCrc32MaskBytes; ++i) head[i] = data[i] | head_mask[i];
  crc = crc32_isal(head, kCrc32MaskBytes, crc);
  return crc32_isal(data + kCrc32MaskBytes, length - kCrc32MaskBytes, crc);
}

#if RNICSIM_CRC32_FOLD

namespace {

// How folding works (facts from Gopal et al., "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ Instruction", Intel, 2009).
// The CRC of a message M is M(x) * x^32 mod P(x), so any part of M can be
// replaced by a shorter polynomial congruent to it mod P. A 16-byte chunk
// C = H * x^64 + L sitting D bits ahead of a later chunk contributes
// C * x^D = H * x^(64+D) + L * x^D to it: two carry-less multiplies of a
// 64-bit half by a 32-bit constant x^n mod P give a 96-bit value that is
// XORed into the later chunk. Repeating this moves the whole buffer onto its
// last 16 bytes.
//
// Bit order: the CRC is reflected, so a register loaded from memory holds
// the message's first bit in bit 0. With that order a 64-bit operand's bit j
// stands for x^(63-j) and the 128-bit product's bit k for x^(126-k), one
// position off the register order; the constants absorb that extra x by
// using x^(63+D) and x^(D-1) instead of x^(64+D) and x^D.

constexpr std::uint32_t kPolynomial = 0x04C11DB7u;  // x^32 term implied

// x^n mod P as a polynomial of degree < 32 (bit e holds the x^e coefficient).
constexpr std::uint32_t x_power_mod_p(unsigned n) {
  std::uint32_t r = 1;
  for (unsigned i = 0; i < n; ++i) {
    const bool overflow = (r & 0x80000000u) != 0;
    r <<= 1;
    if (overflow) r ^= kPolynomial;
  }
  return r;
}

// The polynomial as a reflected 64-bit multiplier operand: x^e at bit 63-e.
constexpr std::uint64_t reflected_operand(std::uint32_t polynomial) {
  std::uint64_t v = 0;
  for (unsigned e = 0; e < 32; ++e) {
    if ((polynomial >> e) & 1u) v |= std::uint64_t{1} << (63 - e);
  }
  return v;
}

// x^-1 mod P: P's constant term is 1, so x * ((P - 1) / x) = P - 1 = 1 mod P.
constexpr std::uint32_t kXInverse = 0x80000000u | (kPolynomial >> 1);

// Multipliers that move a 16-byte chunk `bits` forward: one for its first
// 8 bytes (H, the register's low half), one for its last 8 bytes (L).
// Moving by 0 bits is allowed: x^63 and x^-1 leave the chunk's value mod P.
struct FoldConstants {
  std::uint64_t for_low_half;
  std::uint64_t for_high_half;
};

constexpr FoldConstants fold_by(unsigned bits) {
  return {reflected_operand(x_power_mod_p(63 + bits)),
          reflected_operand(bits == 0 ? kXInverse : x_power_mod_p(bits - 1))};
}

constexpr std::size_t kChunkBytes = 16;
constexpr unsigned kChunkBits = 8 * kChunkBytes;
constexpr FoldConstants kFoldByBlock =
    fold_by(8 * kFoldBlockBytes);  // each register onto the next block

// For the final merge, where every chunk left moves onto the last whole chunk:
// entry i moves a chunk by kMaxMergeDistance - i chunks. The descending order
// puts the constants for distances d (low lane) and d - 1 (high lane) side by
// side, so one 32-byte load serves a register holding two consecutive chunks.
// The farthest chunk is the first of the eight in the registers, with up to
// seven whole chunks of the tail after them.
constexpr std::size_t kMaxMergeDistance = 7 + 7;
struct MergeTable {
  FoldConstants by_descending_distance[kMaxMergeDistance + 1];
};
constexpr MergeTable make_merge_table() {
  MergeTable table{};
  for (std::size_t i = 0; i <= kMaxMergeDistance; ++i) {
    table.by_descending_distance[i] =
        fold_by(static_cast<unsigned>(kMaxMergeDistance - i) * kChunkBits);
  }
  return table;
}
constexpr MergeTable kMergeTable = make_merge_table();

#define RNICSIM_FOLD_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul")))

RNICSIM_FOLD_TARGET inline __m256i broadcast(FoldConstants k) {
  return _mm256_set_epi64x(
      static_cast<long long>(k.for_high_half), static_cast<long long>(k.for_low_half),
      static_cast<long long>(k.for_high_half), static_cast<long long>(k.for_low_half));
}

// Constants for a register whose low chunk lies `distance` chunks ahead of
// the last whole chunk (and whose high chunk one less).
RNICSIM_FOLD_TARGET inline __m256i merge_constants(std::size_t distance) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
      &kMergeTable.by_descending_distance[kMaxMergeDistance - distance]));
}

// Both 16-byte chunks of `chunks` moved forward by the distance `k` encodes.
RNICSIM_FOLD_TARGET inline __m256i fold(__m256i chunks, __m256i k) {
  return _mm256_xor_si256(_mm256_clmulepi64_epi128(chunks, k, 0x00),
                          _mm256_clmulepi64_epi128(chunks, k, 0x11));
}

RNICSIM_FOLD_TARGET inline __m256i load(const std::uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The CRC of `data` with its first block ORed with `head_mask`.
RNICSIM_FOLD_TARGET std::uint32_t fold_kernel(const std::uint8_t* data, std::size_t length,
                                              const std::uint8_t* head_mask, std::uint32_t crc) {
  const __m256i by_block = broadcast(kFoldByBlock);
  const std::uint8_t* const rest = data + kFoldBlockBytes;
  const std::size_t rest_length = length - kFoldBlockBytes;
  const std::size_t blocks = rest_length / kFoldBlockBytes;

  // Four registers, each holding two 16-byte chunks of the current block.
  __m256i r0 = _mm256_or_si256(load(data), load(head_mask));
  __m256i r1 = _mm256_or_si256(load(data + 32), load(head_mask + 32));
  __m256i r2 = _mm256_or_si256(load(data + 64), load(head_mask + 64));
  __m256i r3 = _mm256_or_si256(load(data + 96), load(head_mask + 96));
  // zlib's convention: the inverted running CRC is XORed into the first
  // four message bytes.
  r0 = _mm256_xor_si256(r0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, static_cast<int>(~crc)));
  for (std::size_t block = 0; block < blocks; ++block) {
    const std::uint8_t* p = rest + block * kFoldBlockBytes;
    r0 = _mm256_xor_si256(fold(r0, by_block), load(p));
    r1 = _mm256_xor_si256(fold(r1, by_block), load(p + 32));
    r2 = _mm256_xor_si256(fold(r2, by_block), load(p + 64));
    r3 = _mm256_xor_si256(fold(r3, by_block), load(p + 96));
  }

  // Merge: the eight chunks in the registers and the whole chunks of the tail
  // all move onto the last whole chunk at once (independent multiplies), then
  // the two lanes, now at the same place, are XORed.
  const std::uint8_t* tail = rest + blocks * kFoldBlockBytes;
  const std::size_t tail_length = rest_length - blocks * kFoldBlockBytes;
  const std::size_t tail_chunks = tail_length / kChunkBytes;
  __m256i merged = _mm256_xor_si256(_mm256_xor_si256(fold(r0, merge_constants(tail_chunks + 7)),
                                                     fold(r1, merge_constants(tail_chunks + 5))),
                                    _mm256_xor_si256(fold(r2, merge_constants(tail_chunks + 3)),
                                                     fold(r3, merge_constants(tail_chunks + 1))));
  std::size_t chunk = 0;
  for (; chunk + 2 <= tail_chunks; chunk += 2) {
    merged = _mm256_xor_si256(
        merged, fold(load(tail + kChunkBytes * chunk), merge_constants(tail_chunks - 1 - chunk)));
  }
  __m128i folded =
      _mm_xor_si128(_mm256_castsi256_si128(merged), _mm256_extracti128_si256(merged, 1));
  if (chunk < tail_chunks) {  // an odd count: the last whole chunk itself, which stays
    folded = _mm_xor_si128(
        folded, _mm_loadu_si128(reinterpret_cast<const __m128i*>(tail + kChunkBytes * chunk)));
    ++chunk;
  }

  // The folded 16 bytes stand for everything up to here, with the running CRC
  // already inside, so ISA-L finishes from a zero state (its input 0xFFFFFFFF
  // is inverted on entry) over them and the last bytes short of a chunk.
  const std::size_t left = tail_length - kChunkBytes * chunk;
  std::uint8_t remainder[2 * kChunkBytes];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(remainder), folded);
  std::memcpy(remainder + kChunkBytes, tail + kChunkBytes * chunk, left);
  return crc32_gzip_refl(0xFFFFFFFFu, remainder, kChunkBytes + left);
}

bool processor_has_fold_instructions() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
         __builtin_cpu_supports("vpclmulqdq");
}

}  // namespace

bool crc32_fold_available() {
  static const bool available = processor_has_fold_instructions();
  return available;
}

bool crc32_fold_chosen() {
  // With AVX-512, ISA-L's 512-bit kernel should beat the 256-bit fold (not
  // measured: these machines have no AVX-512).
  static const bool chosen = crc32_fold_available() && !__builtin_cpu_supports("avx512f");
  return chosen;
}

std::uint32_t crc32_fold(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  static constexpr std::uint8_t kNoMask[kFoldBlockBytes] = {};
  return fold_kernel(data, length, kNoMask, crc);
}

std::uint32_t crc32_fold_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc) {
  return fold_kernel(data, length, head_mask, crc);
}

#else  // not x86-64: ISA-L only

bool crc32_fold_available() { return false; }
bool crc32_fold_chosen() { return false; }

std::uint32_t crc32_fold(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  return crc32_isal(data, length, crc);
}

std::uint32_t crc32_fold_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc) {
  return crc32_isal_or_masked(data, length, head_mask, crc);
}

#endif

}  // namespace detail

std::uint32_t crc32(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  if (length >= detail::kFoldBlockBytes && detail::crc32_fold_chosen()) {
    return detail::crc32_fold(data, length, crc);
  }
  return detail::crc32_isal(data, length, crc);
}

std::uint32_t crc32_or_masked(const std::uint8_t* data, std::size_t length,
                              const std::uint8_t* head_mask, std::uint32_t crc) {
  if (length < kCrc32MaskBytes)
    throw std::invalid_argument("crc32_or_masked: buffer shorter than the mask");
  if (detail::crc32_fold_chosen())
    return detail::crc32_fold_or_masked(data, length, head_mask, crc);
  return detail::crc32_isal_or_masked(data, length, head_mask, crc);
}

const char* crc32_kernel() { return detail::crc32_fold_chosen() ? "vpclmulqdq-avx2" : "isa-l"; }

}  // namespace rnicsim::packet

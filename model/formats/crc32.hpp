#pragma once
// CRC-32 as zlib's crc32() computes it (reflected 0xEDB88320, init and xorout
// 0xFFFFFFFF): the CRC inside the RoCEv2 ICRC.
//
// Intel ISA-L's crc32_gzip_refl computes it, except for the bulk of buffers
// of 128 bytes or more on processors with VPCLMULQDQ and AVX2 but without
// AVX-512. There ISA-L runs its 128-bit PCLMULQDQ kernel, and a 256-bit fold
// is twice as fast (results/bench/README.md has the figures); with AVX-512,
// ISA-L's own 512-bit kernel is used. The fold only shortens the buffer to an
// equivalent 16 bytes; ISA-L still computes the final CRC over those and the
// last bytes short of 16.
#include <cstddef>
#include <cstdint>

namespace rnicsim::packet {

// Pass the previous result as `crc` to continue over more bytes.
std::uint32_t crc32(const std::uint8_t* data, std::size_t length, std::uint32_t crc = 0);

// The CRC-32 of `data` as if its first kCrc32MaskBytes bytes were ORed with
// `head_mask`, without writing them: the ICRC's variant fields, which count
// as all ones, are all in a packet's first 80 bytes. Needs
// length >= kCrc32MaskBytes.
inline constexpr std::size_t kCrc32MaskBytes = 128;
std::uint32_t crc32_or_masked(const std::uint8_t* data, std::size_t length,
                              const std::uint8_t* head_mask, std::uint32_t crc = 0);

// The bulk kernel crc32() picked for this processor: "vpclmulqdq-avx2" or
// "isa-l". Benchmarks record it beside their figures.
const char* crc32_kernel();

namespace detail {

// The two kernels on their own, for tests and benchmarks to compare.
std::uint32_t crc32_isal(const std::uint8_t* data, std::size_t length, std::uint32_t crc);
std::uint32_t crc32_isal_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc);
// The processor can run the fold (AVX2, PCLMULQDQ, VPCLMULQDQ).
bool crc32_fold_available();
// ... and crc32() uses it: the processor also lacks AVX-512.
bool crc32_fold_chosen();
// The fold consumes whole blocks of 128 bytes (four 256-bit registers); it
// beats ISA-L from one block on (BM_Crc32Fold against BM_Crc32<crc32_isal>).
inline constexpr std::size_t kFoldBlockBytes = kCrc32MaskBytes;
// Both need crc32_fold_available() and length >= kFoldBlockBytes.
std::uint32_t crc32_fold(const std::uint8_t* data, std::size_t length, std::uint32_t crc);
std::uint32_t crc32_fold_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc);

}  // namespace detail
}  // namespace rnicsim::packet

#pragma once
// CRC-32 as zlib's crc32() computes it (reflected 0xEDB88320, init and xorout
// 0xFFFFFFFF): the CRC inside the RoCEv2 ICRC.
//
// Intel ISA-L's crc32_gzip_refl computes it, except for the bulk of long
// buffers on processors with VPCLMULQDQ and AVX2. There a 256-bit fold runs
// twice as fast as ISA-L's kernel, which uses 128-bit PCLMULQDQ unless the
// processor has AVX-512 (results/bench/README.md has the figures). The fold
// only shortens the buffer to an equivalent 16 bytes; ISA-L still computes
// the final CRC of those and of the bytes that do not fill a 128-byte block.
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
bool crc32_fold_available();
// The fold consumes whole blocks of 128 bytes (four 256-bit registers); it
// beats ISA-L from one block on (BM_Crc32Fold against BM_Crc32<crc32_isal>).
inline constexpr std::size_t kFoldBlockBytes = kCrc32MaskBytes;
// Both need crc32_fold_available() and length >= kFoldBlockBytes.
std::uint32_t crc32_fold(const std::uint8_t* data, std::size_t length, std::uint32_t crc);
std::uint32_t crc32_fold_or_masked(const std::uint8_t* data, std::size_t length,
                                   const std::uint8_t* head_mask, std::uint32_t crc);

}  // namespace detail
}  // namespace rnicsim::packet

#include "program/sweep/program_id.hpp"

#include <elf.h>
#include <link.h>

#include <algorithm>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "config/run_config.hpp"

namespace rnicsim::sweep {
namespace {

// dl_iterate_phdr visits the main program first; its notes hold the build ID.
int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto& id = *static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + header.p_vaddr);
    const unsigned char* end = at + header.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const unsigned char* name = at + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::equal(name, name + 4, "GNU")) {
        for (std::uint32_t b = 0; b < note->n_descsz; ++b) {
          char hex[3];
          std::snprintf(hex, sizeof hex, "%02x", desc[b]);
          id += hex;
        }
        return 1;
      }
      at = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // the main program alone
}

}  // namespace

std::string program_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  if (!id.empty()) return "build-id:" + id;
  std::ifstream file("/proc/self/exe", std::ios::binary);
  std::uint64_t hash = 0;
  char buffer[1 << 16];
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    hash = config::stream_seed(hash, std::string_view(buffer, static_cast<std::size_t>(file.gcount())));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("file-hash:") + text;
}

}  // namespace rnicsim::sweep

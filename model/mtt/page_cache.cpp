#include "mtt/page_cache.hpp"

namespace rnicsim {

namespace {

class ModelPageCache final : public PageCache {
 public:
  ModelPageCache(const CacheGeometry& geometry, std::uint64_t seed) : cache_(geometry, seed) {}
  const char* name() const override { return "model"; }
  std::optional<std::uint64_t> lookup(std::uint64_t index) override { return cache_.lookup(index); }
  std::optional<std::uint64_t> peek(std::uint64_t index) const override {
    return cache_.peek(index);
  }
  void insert(std::uint64_t index, std::uint64_t page_address) override {
    cache_.insert(index, page_address);
  }
  void invalidate(std::uint64_t index) override { cache_.invalidate(index); }
  std::uint64_t hits() const override { return cache_.hits(); }
  std::uint64_t misses() const override { return cache_.misses(); }

 private:
  TranslationCache<std::uint64_t> cache_;
};

}  // namespace

std::unique_ptr<PageCache> make_model_page_cache(const CacheGeometry& geometry,
                                                 std::uint64_t seed) {
  return std::make_unique<ModelPageCache>(geometry, seed);
}

}  // namespace rnicsim
